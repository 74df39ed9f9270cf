import type { Command } from "commander";
import type { Address } from "viem";
import { readActiveRouter, readFeatureState, readNextRouter, readPreviousRouter } from "../../sdk";
import { publicClientOf } from "../cliConfig";
import { contextOf } from "../cliContext";
import { table } from "../cliOutput";
import { CliError, ExitCode } from "../exitCodes";

const reverted = (error: unknown) => ({ reverted: true, message: (error as Error).message.split("\n")[0] ?? "" });

export function registerRegistry(program: Command): void {
  program
    .command("registry")
    .argument("[feature]", "feature id (2 taker-submitted, 3 gasless); default both")
    .description("read the router registry by its raw selectors: ownerOf, prev, next, getFeature")
    .action(async (feature: string | undefined, _options: object, command: Command) => {
      const { config, out } = contextOf(command);
      if (config.registry === undefined) throw new CliError("no registry address: pass --registry, set ROUTER_REGISTRY, or point DEPLOYMENTS_DIR at the deployment manifest", ExitCode.usage);
      if (feature !== undefined && !/^[0-9]+$/.test(feature)) throw new CliError(`[feature] must be an integer, got ${feature}`, ExitCode.usage);
      const client = publicClientOf(config);
      const registry: Address = config.registry;
      const features = feature === undefined ? [2n, 3n] : [BigInt(feature)];
      const rows = await Promise.all(
        features.map(async (featureId) => {
          const read = { registry, featureId };
          const [ownerOf, prev, next, state] = await Promise.all([
            readActiveRouter(client, read).catch(reverted),
            readPreviousRouter(client, read).catch(reverted),
            readNextRouter(client, read).catch(reverted),
            readFeatureState(client, read),
          ]);
          return { feature: featureId.toString(), ownerOf, prev, next, getFeature: state };
        }),
      );
      const cell = (value: unknown) => (typeof value === "string" ? value : "reverts");
      out.result({ registry, features: rows }, () =>
        [`Registry ${registry}`, table(["feature", "ownerOf", "prev", "next", "paused"], rows.map((row) => [row.feature, cell(row.ownerOf), cell(row.prev), cell(row.next), String(row.getFeature.paused)]))].join("\n"),
      );
    });
}
