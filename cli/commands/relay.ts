import type { Command } from "commander";
import { clientOf } from "../cliConfig";
import { contextOf } from "../cliContext";
import { table } from "../cliOutput";
import { CliError, ExitCode } from "../exitCodes";

export function registerRelay(program: Command): void {
  const relay = program.command("relay").description("gasless relays");
  relay
    .command("status")
    .argument("<relay_id>", "the relay_id POST /gasless/submit returned")
    .option("--wait", "poll until the relay is final (confirmed, failed, expired, rejected, cancelled)")
    .description("show a relay's status")
    .action(async (relayId: string, options: { wait?: boolean }, command: Command) => {
      const { config, out } = contextOf(command);
      const client = clientOf(config, (message) => out.progress(message));
      const found = options.wait
        ? await client.waitForRelay(relayId, { timeoutMs: (config.timeoutSeconds ?? 120) * 1000, intervalMs: 500, onStatus: (seen) => out.progress(`relay ${relayId}: ${seen.status}`) })
        : await client.getRelay(relayId);
      out.result(found, () => table(["relay_id", "status", "reason", "tx_hash"], [[found.relay_id, found.status, found.reason ?? "-", found.tx_hash ?? "-"]]));
      if (options.wait && found.status !== "confirmed") throw new CliError(`relay ${relayId} ended ${found.status}`, ExitCode.onChainFailure);
    });
  relay
    .command("cancel")
    .argument("<relay_id>", "the relay_id POST /gasless/submit returned")
    .option("--wait", "poll until the chain decides (the relay ends cancelled, or confirmed if its swap was mined first)")
    .description("cancel a relay (POST /gasless/cancel); prints the taker's Permit2 invalidation too")
    .action(async (relayId: string, options: { wait?: boolean }, command: Command) => {
      const { config, out } = contextOf(command);
      const client = clientOf(config, (message) => out.progress(message));
      const cancellation = await client.cancelRelay(relayId);
      out.progress(`relay ${relayId}: ${cancellation.outcome}; the taker may also send ${cancellation.invalidate_nonce.data} to Permit2 ${cancellation.invalidate_nonce.to}`);
      const relayNow = options.wait
        ? await client.waitForRelay(relayId, { timeoutMs: (config.timeoutSeconds ?? 120) * 1000, intervalMs: 500, onStatus: (seen) => out.progress(`relay ${relayId}: ${seen.status}`) })
        : cancellation.relay;
      const result = { ...cancellation, relay: relayNow };
      out.result(result, () =>
        table(["relay_id", "outcome", "status", "invalidate_nonce.to", "invalidate_nonce.data"], [[relayId, cancellation.outcome, relayNow.status, cancellation.invalidate_nonce.to, cancellation.invalidate_nonce.data]]),
      );
      if (options.wait && relayNow.status !== "cancelled") throw new CliError(`relay ${relayId} ended ${relayNow.status}: the cancellation came too late`, ExitCode.onChainFailure);
    });
  relay
    .command("deliveries")
    .option("--limit <n>", "how many of the newest deliveries (1-200)", "50")
    .description("the webhook's URL, its circuit breaker and its recent deliveries (GET /gasless/webhook/deliveries): state, attempts, the endpoint's last answer")
    .action(async (options: { limit: string }, command: Command) => {
      const { config, out } = contextOf(command);
      if (!/^[0-9]+$/.test(options.limit) || Number(options.limit) < 1 || Number(options.limit) > 200) throw new CliError(`--limit must be an integer from 1 to 200, got ${options.limit}`, ExitCode.usage);
      const listed = await clientOf(config, (message) => out.progress(message)).getWebhookDeliveries({ limit: Number(options.limit) });
      if (listed.url === null) out.progress("no webhook is set: `swap-api onboard webhook --integrator-id <id> --url <url>` sets one");
      out.result(listed, () =>
        [
          `webhook: ${listed.url ?? "none"}`,
          ...(listed.circuit === null || listed.circuit === undefined
            ? []
            : [`circuit: ${listed.circuit.state}${listed.circuit.open_until === null ? "" : ` until ${listed.circuit.open_until}`} (${listed.circuit.consecutive_failures} failed in a row)`]),
          table(
            ["event_id", "relay_id", "status", "state", "attempts", "last_answer", "at"],
            listed.deliveries.map((delivery) => [
              delivery.event_id,
              delivery.relay_id,
              delivery.status,
              delivery.state,
              String(delivery.attempts),
              delivery.last_response_status === null ? (delivery.last_error ?? "-") : String(delivery.last_response_status),
              delivery.delivered_at ?? delivery.next_attempt_at ?? delivery.created_at,
            ]),
          ),
        ].join("\n"),
      );
    });

  relay
    .command("watch")
    .argument("<relay_id>", "the relay_id POST /gasless/submit returned")
    .option("--poll", "poll GET /gasless/status instead of streaming GET /gasless/events")
    .description("follow a relay's status changes as they happen (server-sent events, polling as a fallback) until it is final")
    .action(async (relayId: string, options: { poll?: boolean }, command: Command) => {
      const { config, out } = contextOf(command);
      const client = clientOf(config, (message) => out.progress(message));
      const found = await client.watchRelay(relayId, {
        timeoutMs: (config.timeoutSeconds ?? 120) * 1000,
        mode: options.poll ? "poll" : "auto",
        onStatus: (seen) => out.progress(`relay ${relayId}: ${seen.status}${seen.tx_hash === null ? "" : ` ${seen.tx_hash}`}`),
      });
      out.result(found, () => table(["relay_id", "status", "reason", "tx_hash"], [[found.relay_id, found.status, found.reason ?? "-", found.tx_hash ?? "-"]]));
      if (found.status !== "confirmed") throw new CliError(`relay ${relayId} ended ${found.status}`, ExitCode.onChainFailure);
    });
}
