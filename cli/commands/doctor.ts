import type { Command } from "commander";
import { createTradingClient, readActiveRouter } from "../../sdk";
import { publicClientOf, type CliConfig } from "../cliConfig";
import { contextOf } from "../cliContext";
import { table } from "../cliOutput";
import { describeFailure } from "../connectionFailure";
import { CliError, ExitCode } from "../exitCodes";

type Check = { check: string; ok: boolean; detail: string };

/** A key's scope, probed with a request that passes auth and the scope check and then fails validation (400). */
async function probeScope(config: CliConfig, scope: string, request: { method: "GET" | "POST"; path: string; body?: unknown }): Promise<Check> {
  const url = `${config.apiUrl}${request.path}`;
  const response = await fetch(url, {
    method: request.method,
    headers: { authorization: `Bearer ${config.apiKey}`, ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  }).catch((error: unknown) => new Error(describeFailure(error, url)));
  if (response instanceof Error) return { check: `key scope ${scope}`, ok: false, detail: response.message };
  const body = (await response.json().catch(() => ({}))) as { code?: string };
  const ok = response.status === 400 || response.status === 404;
  return { check: `key scope ${scope}`, ok, detail: ok ? "granted" : `${response.status} ${body.code ?? ""}` };
}

async function run(config: CliConfig): Promise<Check[]> {
  const checks: Check[] = [];
  // Every failure names the URL it tried: a tool pointed at the wrong port must say which one.
  const attempt = async (check: string, url: string, body: () => Promise<string>) => {
    try {
      checks.push({ check, ok: true, detail: await body() });
    } catch (error) {
      checks.push({ check, ok: false, detail: describeFailure(error, url) });
    }
  };
  const client = createTradingClient({ apiUrl: config.apiUrl, apiKey: config.apiKey, chainId: config.chainId, maxAttempts: 1, requestTimeoutMs: 5000 });
  await attempt("API reachable", `${config.apiUrl}/health`, async () => {
    const response = await fetch(`${config.apiUrl}/health`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`GET /health answered ${response.status}`);
    return `${config.apiUrl} ok`;
  });
  await attempt("API serves the chain", config.apiUrl, async () => `snapshot of chain ${config.chainId}: ${(await client.getSupportedTokens(config.chainId)).addresses.size} tokens`);
  client.close();
  const chain = publicClientOf(config);
  await attempt("RPC chain id", config.rpcUrl, async () => {
    const id = await chain.getChainId();
    if (id !== config.chainId) throw new Error(`${config.rpcUrl} is chain ${id}, expected ${config.chainId}`);
    return `${config.rpcUrl} is chain ${id}`;
  });
  await attempt("router registry", config.rpcUrl, async () => {
    if (config.registry === undefined) throw new Error("no registry configured (--registry, ROUTER_REGISTRY or the deployment manifest)");
    const code = await chain.getCode({ address: config.registry });
    if (code === undefined || code === "0x") throw new Error(`no contract at ${config.registry}`);
    const routers = await Promise.all([2n, 3n].map((featureId) => readActiveRouter(chain, { registry: config.registry!, featureId }).then((router) => `${featureId}→${router}`, () => `${featureId}→paused/unset`)));
    return `${config.registry}: ${routers.join(", ")}`;
  });
  if (config.apiKey === undefined) {
    checks.push({ check: "API key", ok: false, detail: "no SWAP_API_KEY: run `swap-api onboard apply` first" });
  } else {
    const url = `${config.apiUrl}/gasless/status/00000000-0000-4000-8000-000000000000`;
    const key = await fetch(url, { headers: { authorization: `Bearer ${config.apiKey}` } }).catch((error: unknown) => new Error(describeFailure(error, url)));
    if (key instanceof Error || key.status === 401) {
      checks.push({ check: "API key", ok: false, detail: key instanceof Error ? key.message : `401 ${((await key.json()) as { code?: string }).code ?? ""}` });
    } else {
      checks.push({ check: "API key", ok: true, detail: "accepted" });
      checks.push(await probeScope(config, "quote:read", { method: "GET", path: "/quote" }));
      checks.push(await probeScope(config, "swap:create", { method: "POST", path: "/gasless/submit", body: {} }));
    }
  }
  return checks;
}

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check the API, the chain id, the registry and the key's scopes")
    .action(async (_options: object, command: Command) => {
      const { config, out } = contextOf(command);
      const checks = await run(config);
      const ok = checks.every((check) => check.ok);
      out.result({ ok, checks }, () => table(["check", "ok", "detail"], checks.map((check) => [check.check, check.ok ? "yes" : "NO", check.detail])));
      if (!ok) throw new CliError(`${checks.filter((check) => !check.ok).length} check(s) failed`, checks.some((check) => check.check === "API reachable" && !check.ok) ? ExitCode.apiUnavailable : ExitCode.refused);
    });
}
