import type { Command } from "commander";
import type { Address } from "viem";
import type { PriceJson, QuoteJson, QuoteParameters, TradingClient } from "../../sdk";
import { clientOf, resolveToken, symbolOf, walletOf, type CliConfig } from "../cliConfig";
import { contextOf } from "../cliContext";
import { table } from "../cliOutput";
import { CliError, ExitCode } from "../exitCodes";

/** Options shared by `quote` and `swap`. */
export type QuoteOptions = {
  taker?: string;
  slippageBps?: string;
  settlement?: string;
  feeBps?: string;
  maxHops?: string;
  gasless?: boolean;
  genuineDemand?: boolean;
  /** Exact output: buy exactly this much (instead of the <amount> to sell). */
  buyAmount?: string;
  /** `token`: amounts in whole tokens with a decimal point; default `base` units. */
  amountUnit?: string;
};

/** `argumentsOptional`: `swap --quote <file>` takes none, so commander must not demand them there. */
export function addQuoteOptions(command: Command, argumentsOptional = false): Command {
  const name = (argument: string) => (argumentsOptional ? `[${argument}]` : `<${argument}>`);
  return command
    .argument(name("sell"), "token to sell: address, symbol from the deployment manifest, or ETH")
    .argument(name("buy"), "token to buy")
    .argument("[amount]", "sell amount in base units (e.g. 1000000 for 1 USDC); omit it with --buy-amount")
    .option("--buy-amount <amount>", "exact output: buy exactly this much, for at most the quote's max_sell_amount (instead of <amount>)")
    .option("--amount-unit <unit>", "base (default) or token: amounts in whole tokens with a decimal point, such as 1.5")
    .option("--taker <address>", "taker wallet (default: the PRIVATE_KEY's address)")
    .option("--slippage-bps <bps>", "slippage tolerance in basis points")
    .option("--settlement <mode>", "permit2 or allowance")
    .option("--fee-bps <bps>", "integrator fee in basis points")
    .option("--max-hops <n>", "at most this many pools per path (1-16)")
    .option("--gasless", "a gasless quote: a relayer sends the swap")
    .option("--genuine-demand", "a real user asked for a token outside the snapshot: send one probe");
}

/** Exactly one of <amount> (sell) and --buy-amount, each an integer in base units or, with --amount-unit token, a decimal. */
function amountParameters(amount: string | undefined, options: QuoteOptions): Pick<QuoteParameters, "sellAmount" | "buyAmount" | "amountUnit"> {
  const unit = options.amountUnit ?? "base";
  if (unit !== "base" && unit !== "token") throw new CliError(`--amount-unit must be base or token, got ${unit}`, ExitCode.usage);
  if ((amount === undefined) === (options.buyAmount === undefined)) {
    throw new CliError("give exactly one of <amount> (the amount to sell) and --buy-amount (the exact amount to buy)", ExitCode.usage);
  }
  const [name, value] = amount !== undefined ? ["<amount>", amount] : ["--buy-amount", options.buyAmount!];
  const valid = unit === "token" ? /^[0-9]+(\.[0-9]+)?$/ : /^[0-9]+$/;
  if (!valid.test(value)) throw new CliError(`${name} must be ${unit === "token" ? "a decimal number of tokens such as 1.5" : "an integer in base units"}, got ${value}`, ExitCode.usage);
  const sent = unit === "token" ? value : BigInt(value);
  return { ...(amount !== undefined ? { sellAmount: sent } : { buyAmount: sent }), ...(options.amountUnit === undefined ? {} : { amountUnit: unit }) };
}

export function quoteParameters(config: CliConfig, sell: string, buy: string, amount: string | undefined, options: QuoteOptions, taker: Address): QuoteParameters {
  if (options.settlement !== undefined && options.settlement !== "permit2" && options.settlement !== "allowance") {
    throw new CliError(`--settlement must be permit2 or allowance, got ${options.settlement}`, ExitCode.usage);
  }
  if (options.maxHops !== undefined && !/^([1-9]|1[0-6])$/.test(options.maxHops)) throw new CliError(`--max-hops must be an integer from 1 to 16, got ${options.maxHops}`, ExitCode.usage);
  return {
    chainId: config.chainId,
    sellToken: resolveToken(config, sell),
    buyToken: resolveToken(config, buy),
    ...amountParameters(amount, options),
    taker,
    slippageBps: options.slippageBps === undefined ? undefined : Number(options.slippageBps),
    settlement: options.settlement as "permit2" | "allowance" | undefined,
    feeBps: options.feeBps === undefined ? undefined : Number(options.feeBps),
    maxHops: options.maxHops === undefined ? undefined : Number(options.maxHops),
    gasless: options.gasless === true,
    genuineDemand: options.genuineDemand === true,
  };
}

export function takerOf(config: CliConfig, options: QuoteOptions): Address {
  if (options.taker !== undefined) return options.taker as Address;
  return walletOf(config).account.address;
}

/** `USDC→WETH`, or for a split each leg's path and share: `60.00% USDC→WETH | 40.00% USDC→DAI→WETH`. */
function routeText(config: CliConfig, quote: PriceJson): string {
  const name = (address: string) => symbolOf(config, address) || address;
  const path = (hops: PriceJson["route"]["hops"]) => (hops.length === 0 ? "-" : [name(hops[0]!.token_in), ...hops.map((hop) => name(hop.token_out))].join("→"));
  const { legs } = quote.route;
  if (legs.length < 2) return path(quote.route.hops);
  return legs.map((leg) => `${(leg.share_bps / 100).toFixed(2)}% ${path(leg.hops)}`).join(" | ");
}

/** The rows a price and a quote share; a quote adds its id and transaction around them. */
function pricedRows(config: CliConfig, quote: PriceJson): string[][] {
  const label = (address: string) => `${symbolOf(config, address) || "?"} ${address}`;
  return [
    ["sell", `${quote.sell_amount} ${label(quote.sell_token)}`],
    ...(quote.max_sell_amount === undefined ? [] : [["max_sell_amount", quote.max_sell_amount]]),
    ["buy", `${quote.buy_amount} ${label(quote.buy_token)}`],
    ["min_buy_amount", quote.min_buy_amount],
    ["route", routeText(config, quote)],
    ["settlement", `${quote.settlement}${quote.gasless ? " (gasless)" : ""}`],
    ["relayer_fee", quote.relayer_fee === null ? "-" : quote.relayer_fee.amount],
    ["network_fee", quote.network_fee === undefined ? "-" : `${quote.network_fee.amount_eth} ETH (${quote.network_fee.gas} gas at ${quote.network_fee.gas_price_gwei} gwei)`],
  ];
}

function issuesText(quote: PriceJson): string {
  return `allowance: ${quote.issues.allowance === null ? "ok" : `approve ${quote.issues.allowance.spender}`}; balance: ${quote.issues.balance === null ? "ok" : `holds ${quote.issues.balance.actual}, needs ${quote.issues.balance.expected}`}`;
}

export function quoteTable(config: CliConfig, quote: QuoteJson): string {
  return table(
    ["field", "value"],
    [
      ["quote_id", quote.quote_id],
      ...pricedRows(config, quote),
      ["tx.to", quote.tx.to],
      ["estimated_gas", String(quote.tx.estimated_gas)],
      ["expires_at", quote.expires_at],
      ["issues", issuesText(quote)],
    ],
  );
}

/** An indicative price (GET /price): no quote id, no transaction. */
export function priceTable(config: CliConfig, price: PriceJson): string {
  return table(["field", "value"], [...pricedRows(config, price), ["block_number", price.block_number], ["issues", issuesText(price)]]);
}

export async function fetchQuote(client: TradingClient, config: CliConfig, sell: string, buy: string, amount: string | undefined, options: QuoteOptions): Promise<QuoteJson> {
  return client.getQuote(quoteParameters(config, sell, buy, amount, options, takerOf(config, options)));
}

export function registerQuote(program: Command): void {
  addQuoteOptions(program.command("price").description("get an indicative price: a quote's route, amounts and fees without a transaction (needs SWAP_API_KEY)")).action(
    async (sell: string, buy: string, amount: string | undefined, options: QuoteOptions, command: Command) => {
      const { config, out } = contextOf(command);
      const client = clientOf(config, (message) => out.progress(message));
      const price = await client.getPrice(quoteParameters(config, sell, buy, amount, options, takerOf(config, options)));
      client.close();
      out.result(price, () => priceTable(config, price));
    },
  );
  addQuoteOptions(program.command("quote").description("get a quote (needs SWAP_API_KEY)")).action(
    async (sell: string, buy: string, amount: string | undefined, options: QuoteOptions, command: Command) => {
      const { config, out } = contextOf(command);
      const client = clientOf(config, (message) => out.progress(message));
      const quote = await fetchQuote(client, config, sell, buy, amount, options);
      client.close();
      out.result(quote, () => quoteTable(config, quote));
    },
  );
}
