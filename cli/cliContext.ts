import type { Command } from "commander";
import { loadCliConfig, type CliConfig, type GlobalOptions } from "./cliConfig";
import { CliOutput } from "./cliOutput";

/** What every command's action gets: the parsed configuration and the output channels. */
export type CliContext = { config: CliConfig; out: CliOutput };

/** Builds the context from the root program's global options at action time. */
export function contextOf(command: Command): CliContext {
  const options = command.optsWithGlobals<GlobalOptions>();
  const config = loadCliConfig(options, process.env);
  return { config, out: new CliOutput(config.json) };
}
