import { readFileSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import type { Address } from "viem";
import { StaleQuoteError, quoteJsonSchema, type QuoteExpectation, type QuoteJson } from "../../sdk";
import { clientOf, walletOf } from "../cliConfig";
import { contextOf } from "../cliContext";
import { table } from "../cliOutput";
import { CliError, ExitCode } from "../exitCodes";
import { addQuoteOptions, fetchQuote, quoteTable, type QuoteOptions } from "./quote";

type SwapOptions = QuoteOptions & { dryRun?: boolean; yes?: boolean; quote?: string; pollMs?: string };

/** A swap that would need a question nobody can answer is refused before anything is quoted. */
function assertCanConfirm(options: SwapOptions): void {
  if (options.yes || options.dryRun || process.stdin.isTTY) return;
  throw new CliError("refusing to swap without confirmation: pass --yes (stdin is not a terminal)", ExitCode.usage);
}

async function confirmed(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await prompt.question(question);
  prompt.close();
  return /^y(es)?$/i.test(answer.trim());
}

/**
 * What a saved quote must answer, its request being unknown: the wallet trades and receives, and the
 * route pays no fee beyond --fee-bps (none by default).
 */
function savedQuoteExpectation(taker: Address, options: SwapOptions): QuoteExpectation {
  return {
    taker,
    feeBps: options.feeBps === undefined ? 0 : Number(options.feeBps),
    slippageBps: options.slippageBps === undefined ? undefined : Number(options.slippageBps),
  };
}

function savedQuote(file: string): QuoteJson {
  const parsed = quoteJsonSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new CliError(`--quote ${file} is not a quote saved with \`swap-api quote --json\``, ExitCode.usage);
  return parsed.data;
}

export function registerSwap(program: Command): void {
  addQuoteOptions(program.command("swap").description("quote and execute a swap with PRIVATE_KEY's wallet (or --gasless through the relayer)"), true)
    .option("--dry-run", "quote and run every check, but sign and send nothing")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--quote <file>", "execute this saved quote (from `quote --json`) instead of a new one; <sell> <buy> <amount> are then ignored")
    .action(async (sellArgument: string | undefined, buyArgument: string | undefined, amountArgument: string | undefined, options: SwapOptions, command: Command) => {
      if (options.quote === undefined && (sellArgument === undefined || buyArgument === undefined || (amountArgument === undefined && options.buyAmount === undefined))) {
        throw new CliError("swap needs <sell> <buy> <amount> (or --buy-amount), or --quote <file> with a saved quote", ExitCode.usage);
      }
      assertCanConfirm(options);
      const [sell, buy, amount] = [sellArgument ?? "", buyArgument ?? "", amountArgument];
      const { config, out } = contextOf(command);
      const client = clientOf(config, (message) => out.progress(message));
      try {
        const wallet = walletOf(config);
        let quote = options.quote === undefined ? await fetchQuote(client, config, sell, buy, amount, options) : savedQuote(options.quote);
        // A fetched quote is checked against its request, which the client remembers.
        const expected = options.quote === undefined ? undefined : savedQuoteExpectation(wallet.account.address, options);
        out.progress(quoteTable(config, quote));
        if (options.dryRun) {
          await client.verifyQuote(quote, expected);
          out.progress("dry run: the quote passed the balance, order and registry checks; nothing was signed or sent");
          out.result({ dry_run: true, checks: "passed", quote }, () => `dry run OK: quote ${quote.quote_id} would send to ${quote.tx.to}`);
          return;
        }
        if (!options.yes && !(await confirmed(quote.max_sell_amount === undefined ? `Swap ${quote.sell_amount} for at least ${quote.min_buy_amount}? [y/N] ` : `Swap at most ${quote.max_sell_amount} (about ${quote.sell_amount}) for ${quote.buy_amount}? [y/N] `))) {
          throw new CliError("swap cancelled", ExitCode.usage);
        }
        // A quote can go stale while its approval is mined: a fresh one (no approval needed now) is tried once.
        const once = async <T>(run: (current: QuoteJson) => Promise<T>): Promise<T> => {
          try {
            return await run(quote);
          } catch (error) {
            if (!(error instanceof StaleQuoteError) || options.quote !== undefined) throw error;
            out.progress(`quote ${quote.quote_id} went stale; re-quoting once`);
            quote = await fetchQuote(client, config, sell, buy, amount, options);
            return run(quote);
          }
        };
        if (quote.gasless) {
          const timeoutMs = (config.timeoutSeconds ?? 120) * 1000;
          const relay = await once((current) => client.swapGasless(current, wallet, { expected, timeoutMs, intervalMs: 500, onStatus: (seen) => out.progress(`relay ${seen.relay_id}: ${seen.status}${seen.tx_hash ? ` ${seen.tx_hash}` : ""}`) }));
          out.result({ quote_id: quote.quote_id, gasless: true, relay }, () =>
            table(["relay_id", "status", "tx_hash"], [[relay.relay_id, relay.status, relay.tx_hash ?? "-"]]),
          );
          if (relay.status !== "confirmed") throw new CliError(`relay ${relay.relay_id} ended ${relay.status}${relay.reason ? ` (${relay.reason})` : ""}: ${relay.error ?? ""}`, ExitCode.onChainFailure);
          return;
        }
        const executed = await once((current) => client.executeQuote(current, wallet, expected));
        const result = { quote_id: quote.quote_id, gasless: false, tx_hash: executed.hash, status: executed.receipt.status, block_number: executed.receipt.blockNumber, gas_used: executed.receipt.gasUsed, approval_tx_hash: executed.approvalHash ?? null };
        out.result(result, () => table(["quote_id", "tx_hash", "status", "gas_used"], [[quote.quote_id, executed.hash, executed.receipt.status, String(executed.receipt.gasUsed)]]));
      } finally {
        client.close();
      }
    });
}
