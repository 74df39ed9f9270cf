import type { Command } from "commander";
import { clientOf, symbolOf } from "../cliConfig";
import { contextOf } from "../cliContext";
import { table } from "../cliOutput";

export function registerTokens(program: Command): void {
  program
    .command("tokens")
    .description("list the supported-token snapshot of the chain")
    .action(async (_options: object, command: Command) => {
      const { config, out } = contextOf(command);
      const client = clientOf(config, (message) => out.progress(message));
      const snapshot = await client.getSupportedTokens(config.chainId);
      client.close();
      const addresses = [...snapshot.addresses];
      out.result({ chain_id: snapshot.chainId, snapshot_id: snapshot.snapshotId, etag: snapshot.etag, count: addresses.length, addresses }, () =>
        [`Chain ${snapshot.chainId}, snapshot ${snapshot.snapshotId} (${addresses.length} tokens)`, table(["symbol", "address"], addresses.map((address) => [symbolOf(config, address), address]))].join("\n"),
      );
    });
}
