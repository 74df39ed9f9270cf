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
