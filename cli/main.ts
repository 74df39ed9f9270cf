import { Command, CommanderError } from "commander";
import { ApiError, QuoteCalldataError, QuoteMismatchError, SdkError, WebhookUrlError } from "../sdk";
import { DEFAULTS } from "./cliConfig";
import { finishJson } from "./cliOutput";
import { connectionFailure } from "./connectionFailure";
import { registerDoctor } from "./commands/doctor";
import { registerOnboard } from "./commands/onboard";
import { registerQuote } from "./commands/quote";
import { registerRegistry } from "./commands/registry";
import { registerRelay } from "./commands/relay";
import { registerSwap } from "./commands/swap";
import { registerTokens } from "./commands/tokens";
import { ExitCode, exitCodeOf } from "./exitCodes";

/** The `swap-api` program: global options, then one registration per command. */
export function buildProgram(): Command {
  const program = new Command("swap-api")
    .description("Token Swap Trading API from a shell: onboard, list tokens, quote, swap (also gasless), follow relays, read the router registry")
    .option("--api-url <url>", `API base URL (env SWAP_API_URL, else http://API_HOST:API_PORT, default ${DEFAULTS.apiUrl})`)
    .option("--api-key <key>", "API key (env SWAP_API_KEY)")
    .option("--rpc-url <url>", `JSON-RPC URL (env RPC_URL, else http://DEVNET_HOST:DEVNET_PORT, default ${DEFAULTS.rpcUrl})`)
    .option("--private-key <hex>", "wallet key for signing commands (env PRIVATE_KEY); prefer the environment variable")
    .option("--chain-id <id>", `chain id (env CHAIN_ID, default ${DEFAULTS.chainId})`)
    .option("--registry <address>", "router registry (env ROUTER_REGISTRY, default from the deployment manifest)")
    .option("--fee-recipient <address>", "your integrator fee recipient (env SWAP_FEE_RECIPIENT): a quote paying a fee to anyone else is refused")
    .option("--deployments-dir <dir>", "folder of deployment manifests (env DEPLOYMENTS_DIR, default deployments/)")
    .option("--manifest <file>", "the chain's deployment manifest by its path (env DEPLOYMENT_MANIFEST); overrides --deployments-dir")
    .option("--retries <n>", "retries of idempotent requests on 429/5xx/network errors", "3")
    .option("--timeout <seconds>", "per-request HTTP timeout, and the wait limit of relays (default 120 s)")
    .option("--json", "print only machine-readable JSON on stdout")
    .showHelpAfterError()
    .exitOverride();
  for (const register of [registerOnboard, registerTokens, registerQuote, registerSwap, registerRelay, registerRegistry, registerDoctor]) register(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

function describe(error: unknown) {
  if (error instanceof ApiError) {
    const field = error instanceof WebhookUrlError ? { field: error.field } : {};
    return { name: error.name, message: error.shortMessage, status: error.status, code: error.code, ...field, retryable: error.retryable, retry_after_seconds: error.retryAfterSeconds ?? null };
  }
  if (error instanceof QuoteMismatchError) return { name: error.name, message: error.shortMessage, field: error.field, expected: error.expected, actual: error.actual, source: error.source, details: error.details ?? null };
  if (error instanceof QuoteCalldataError) return { name: error.name, message: error.shortMessage, field: error.field, details: error.details ?? null };
  if (error instanceof SdkError) return { name: error.name, message: error.shortMessage, details: error.details ?? null };
  return { name: (error as Error).name ?? "Error", message: connectionFailure(error) ?? (error as Error).message ?? String(error) };
}

async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv as string[]);
    finishJson();
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; everything else commander raises is a usage error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const exitCode = exitCodeOf(error);
    const described = describe(error);
    process.stderr.write(`error: ${error instanceof SdkError ? error.message : described.message}\n`);
    if (program.opts<{ json?: boolean }>().json) finishJson({ ...described, exit_code: exitCode });
    return exitCode;
  }
}

void main(process.argv).then((code) => {
  process.exitCode = code;
});
