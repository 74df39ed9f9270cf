import { randomUUID } from "node:crypto";
import type { Address, Hex } from "viem";
import { encodeRouteActions, Feature, NATIVE_TOKEN, NATIVE_TOKEN_LOWERCASE, type ExactOutputOrder, type SwapOrder } from "../../../sdk";
import { cappedPriorityFee, l1DataFeeWei, type NetworkFeeModel } from "../../../sdk/chain/networkFeeModel";
import type { SignatureKind, TokenPermitOffer } from "./tokenPermitOffer";
import { ApiError } from "../../../sdk/server/apiError";
import type { ChainContext } from "../../chains/chainContext";
import { checksummed } from "../../services/checksummedAddress";
import type { GaslessConfig } from "../../config";
import { admitFeeToken } from "../admission/feeTokenAdmission";
import type { RelayerFeeQuote } from "../gas/relayerFee";
import type { ApiKeyPrincipal } from "../../middleware/apiKeyAuth";
import type { SupportedToken } from "../../tokens/supportedTokens";
import type { BlockCache } from "../market/blockCache";
import type { ChainHead } from "../../../sdk/chain/chainHead";
import type { PermitNonceAllocator } from "../nonces/permitNonces";
import type { NonceRanges } from "../nonces/nonceRanges";
import type { MarketTracker } from "../market/marketTracker";
import { legsHopGas, type RouteSearchStats } from "../routing/prunedRouteSearch";
import type { QuoteQuery } from "../admission/quoteQuery";
import type { RouteHop } from "../routing/routeSearch";
import { ASSUMED_PRIORITY_FEE_WEI } from "../routing/splitDecision";
import type { SplitLeg } from "../routing/splitRoute";
import { activeRouter, allowanceHolderOf } from "./featureRouters";
import { blockReads } from "../market/blockReads";
import { planAvoidingTaxed, planRoute } from "../routing/routePlan";
import { marketWithoutSources } from "../market/marketView";
import { planExactOutputRoute } from "../routing/exactOutputPlan";
import { requotePropAmmHops } from "../venues/propAmmRequote";
import { orderEncoding, type QuotePermitTypedData } from "./orderEncoding";
import { admitNonPairTokens } from "../admission/propAmmPairAdmission";
import { randomQuoteId } from "./quoteId";
import { SETTLEMENT_MODES, settlementModeOf } from "./settlementModes";
import { admitTaxedTokens, afterBuyTax, type QuoteTaxes } from "../admission/taxedTokenAdmission";

const NATIVE = NATIVE_TOKEN_LOWERCASE;
const BPS = 10_000n;
/** How old a head GET /price may be priced at: about four blocks of chain 4663, well under a UI's polling interval. */
const PRICE_HEAD_MAX_AGE_MS = 1000;

/** What a quote is built from once the request passed admission and both buckets. */
export type QuoteInput = Readonly<{
  /** How gasless quotes are priced; undefined when the deployment has no relayer. */
  gasless: GaslessConfig | undefined;
  chain: ChainContext;
  principal: ApiKeyPrincipal;
  query: QuoteQuery;
  sellToken: SupportedToken;
  buyToken: SupportedToken;
  /** The tokens' transfer taxes, when the caller already admitted them (admitTaxedTokens); read here otherwise. */
  taxes?: QuoteTaxes;
}>;

/** State shared by all quotes of one app. */
export type QuoteEngine = Readonly<{
  heads: ChainHead;
  /** The chain's pools of every venue, followed from events; a quote is priced at one of its snapshots. */
  pools: MarketTracker;
  blockCache: BlockCache;
  nonces: PermitNonceAllocator;
  /** Nonce ranges leased against the other API instances (PostgreSQL); undefined for one instance alone. */
  nonceRanges: NonceRanges | undefined;
  /** Router → its allowance holder; routers are immutable, so this never goes stale. */
  holders: Map<Address, Promise<Address>>;
  /** Quotes expire this long after the block they were priced at. */
  ttlSeconds: number;
  /** The node's tip and the L1 data price, read once per block. */
  fees: NetworkFeeModel;
}>;

/**
 * `firm`: GET /quote, which reserves the taker's Permit2 nonce (and the handler records the quote).
 * `indicative`: GET /price, the same route, amounts, fees and gas, priced with the nonce a firm quote
 * would take now, reserving none.
 */
export type QuoteKind = "firm" | "indicative";

export type QuoteSettlement = "permit2" | "allowance";

/** The quote, with amounts as bigints; quoteResponse.ts turns it into JSON. */
export type Quote = Readonly<{
  quoteId: string;
  quoteIdBytes32: Hex;
  chainId: number;
  blockNumber: bigint;
  sellToken: Address;
  buyToken: Address;
  /** The input: what is sold, or for an exact-output quote the input the route needs at the quote's block. */
  sellAmount: bigint;
  /** Exact-output quotes only: the most the taker may spend (sellAmount plus the slippage tolerance). */
  maxSellAmount: bigint | undefined;
  /** The output: expected (exact input), or exactly what was asked (exact output). */
  buyAmount: bigint;
  minBuyAmount: bigint;
  /** Every hop of the route, leg after leg. */
  hops: readonly RouteHop[];
  /** The route's paths: one, or 2-3 legs of a split, each with its share of the sell amount. */
  legs: readonly SplitLeg[];
  platformFee: { token: Address; symbol: string; decimals: number; amount: bigint; bps: number; recipient: Address };
  settlement: QuoteSettlement;
  expiresAt: Date;
  /** The router the order executes on: feature 2's (tx.to, or the holder's operator), or feature 3's when gasless. */
  router: Address;
  /** Gasless quotes only: the relayer's fee, signed in the witness. */
  relayerFee: RelayerFeeQuote | undefined;
  taker: Address;
  /** The single-path search for the whole amount: token paths tried, and those that priced. */
  routeStats: RouteSearchStats;
  /** As asked (default 100): min_buy_amount is buy_amount less this. */
  slippageBps: number;
  /** The key's integrator (its slug), who receives platform_fee. */
  integratorSlug: string;
  /** The order the router takes: exact-input, or exact-output (`maxSellAmount`, `buyAmount`). */
  order: SwapOrder | ExactOutputOrder;
  tx: { to: Address; data: Hex; value: bigint; estimatedGas: number; signatureOffset: number | undefined };
  /** The Permit2 typed data the taker signs (firm permit quotes only); the response adds EIP712Domain to its types. */
  permit2: QuotePermitTypedData | undefined;
  /** Permit settlement: the Permit2 nonce the taker signs (indicative: the one it would sign, not reserved). */
  permit2Nonce: bigint | undefined;
  /** What the transaction is expected to cost in ETH: its gas at the block's base fee plus the tip, plus any L1 data cost. */
  networkFee: { gas: number; gasPrice: bigint; l1FeeWei: bigint; amount: bigint };
  /** The sell and buy tokens' transfer taxes (`token_metadata`); a buy tax is already out of buyAmount. */
  taxes: QuoteTaxes;
  /** Gasless only: how the taker signs (a contract taker signs through ERC-1271). */
  signatureKind: SignatureKind | undefined;
  /** Gasless only: the sell token's EIP-2612 permit to Permit2, offered when the allowance falls short. */
  tokenPermit: TokenPermitOffer | undefined;
  issues: {
    allowance: { spender: Address; actual: bigint } | null;
    balance: { token: Address; actual: bigint; expected: bigint } | null;
    /** Some known pool could not be read at the quoted block: the route was searched without it. */
    simulationIncomplete: boolean;
  };
}>;

/**
 * Prices the request at the latest block and builds everything the taker needs: the order, the
 * transaction (with a signature placeholder for permit settlement), the Permit2 typed data and the
 * allowance and balance issues. Reads happen at one block, batched into one JSON-RPC request.
 */
export async function buildQuote(engine: QuoteEngine, input: QuoteInput, kind: QuoteKind = "firm"): Promise<Quote> {
  const { chain, principal, query, sellToken, buyToken } = input;
  const { client, manifest } = chain;
  const weth = manifest.contracts.weth.toLowerCase() as Address;
  const sellsNative = sellToken.address === NATIVE;
  const gasless = input.gasless;
  if (query.gasless && gasless === undefined) {
    throw new ApiError("gasless_unavailable", "gasless quotes (permit2_owner) are not offered by this deployment: it has no relayer configured");
  }
  if (query.gasless && gasless !== undefined) admitFeeToken(gasless, manifest, sellToken);
  const taxes = input.taxes ?? (await admitTaxedTokens(chain, query, sellToken, buyToken));

  // The quote is priced at the pool snapshot of the latest head, and every other read is at that same
  // block. Its hash keys the cache (a reorg, or a devnet snapshot revert, reuses numbers),
  // and its timestamp starts the deadline: chain time, not server time, is what the router checks.
  // A firm quote reads the head now (a client that waited for its receipt must see it); a price may
  // reuse one read within PRICE_HEAD_MAX_AGE_MS, which spares a polling UI's price the round trip.
  const head = kind === "firm" ? await engine.heads.fresh() : await engine.heads.recent(PRICE_HEAD_MAX_AGE_MS);
  const [pools, fees] = await Promise.all([engine.pools.at(client, head, chain.tokens), engine.fees.at(head)]);
  await admitNonPairTokens(engine.pools, client, head, sellToken, buyToken);
  const block = pools.block;
  const blockNumber = block.number;
  const reads = blockReads(engine, client, block.hash, blockNumber);
  const feature = query.gasless ? Feature.GaslessSwap : Feature.TakerSubmittedSwap;
  const [router, takerIsContract] = await Promise.all([
    activeRouter(engine, chain, feature, block.hash, blockNumber),
    sellsNative || query.settlement === "allowance" ? Promise.resolve(false) : reads.hasCode(query.taker),
  ]);
  const settlement = chooseSettlement(query, sellsNative, takerIsContract);
  // The node's tip, never above the configured one: the relayer's for gasless quotes, else the assumed tip.
  const tip = cappedPriorityFee(fees, query.gasless && gasless !== undefined ? gasless.priorityFeeWei : ASSUMED_PRIORITY_FEE_WEI);
  const exactOutput = query.buyAmount !== undefined;
  // Pools of the venues the request excludes are out of every search (the names were checked on admission).
  // Gasless routes take every venue: the relayer reprices a failed relay's V2, V3 and propAMM hops from
  // the chain at its block (relayer/attribution) to tell the taker's failure from the market's.
  const market = marketWithoutSources(pools, new Set(query.excludedSources ?? []));
  const plan = await requotePropAmmHops(await planAvoidingTaxed(input, market, weth, block.baseFeePerGas + tip, exactOutput ? planExactOutputRoute : planRoute), (requests) => engine.pools.exactPropAmmQuotes(block, requests));
  // Read in every mode (it is cached per router): a permit or native quote paying the holder would
  // strand the output just as an allowance quote would.
  // The gasless router has no holder of its own; the deployment's holder is refused all the same.
  const routerHolder = query.gasless ? checksummed(manifest.contracts.allowanceHolder) : await allowanceHolderOf(engine, client, router);
  const holder = settlement === "allowance" && !sellsNative ? routerHolder : undefined;
  // The output would be stranded in a contract of ours: the router refuses itself, and the holder
  // has no way to pay anything out.
  if (query.recipient === router || query.recipient === routerHolder) {
    // Name the parameter that was sent: without `recipient` the output goes to the taker.
    const parameter = query.recipient === query.taker ? "taker" : "recipient";
    const paid = parameter === "taker" ? " (the output is paid to the taker when no recipient is given)" : "";
    throw new ApiError("invalid_request", `${parameter} ${query.recipient} is the router or allowance holder${paid}; it would strand the output`);
  }

  const feeAmount = (plan.grossOut * BigInt(query.feeBps)) / BPS;
  // Exact output: the output asked is bound as the minimum, and the slippage tolerance goes on the input.
  // A taxed buy token reaches the recipient less its buy tax (admitTaxedTokens refused a fee with one,
  // and refuses an exact output of one).
  const buyAmount = exactOutput ? query.buyAmount! : afterBuyTax(plan.grossOut, taxes.buy) - feeAmount;
  if (buyAmount <= 0n) {
    throw new ApiError("no_route", `sell_amount ${query.sellAmount} is too small to buy any ${buyToken.symbol}`);
  }
  const minBuyAmount = exactOutput ? buyAmount : (buyAmount * (BPS - BigInt(query.slippageBps))) / BPS;
  const sellAmount = plan.amountIn;
  const maxSellAmount = exactOutput ? maxInputOf(sellAmount, query.slippageBps) : undefined;
  const actions = query.feeBps > 0 ? [...plan.actions, { type: "fee" as const, bps: query.feeBps, recipient: principal.integratorFeeRecipient }] : plan.actions;

  // Counted from the next block's time, not the latest block's: on a chain that mines on demand (a
  // devnet) the latest block may be hours old, and a deadline counted from it would already be past.
  const start = block.nextTimestamp;
  const nowMs = Number(start) * 1000;
  const deadline = start + BigInt(engine.ttlSeconds);
  const quoteIdBytes32 = randomQuoteId();
  const orderSellToken = sellsNative ? NATIVE_TOKEN : checksummed(sellToken.address);
  const orderBuyToken = plan.buysNative ? NATIVE_TOKEN : checksummed(buyToken.address);
  const orderEnd = { recipient: query.recipient, deadline, quoteId: quoteIdBytes32, actions: encodeRouteActions(actions) };
  const order: SwapOrder | ExactOutputOrder =
    maxSellAmount === undefined
      ? { sellToken: orderSellToken, sellAmount, buyToken: orderBuyToken, minBuyAmount, ...orderEnd }
      : { sellToken: orderSellToken, maxSellAmount, buyToken: orderBuyToken, buyAmount, ...orderEnd };
  const encoding = orderEncoding(order);
  // What the taker may be debited before a relayer fee: the sell amount, or the maximum input.
  const maxInput = encoding.maxInput;

  // Everything the taker-specific parts need, in one batch at the quoted block (nonce word 0 too,
  // which the allocation below then finds in the block cache).
  const spender = settlement === "permit2" ? manifest.contracts.permit2 : holder;
  const [sellBalance, allowance, , recipientBalance, feeRecipientBalance, relayerFeeRecipientBalance] = await Promise.all([
    reads.balanceOf(sellToken.address, query.taker),
    spender === undefined ? Promise.resolve(undefined) : reads.allowance(sellToken.address, query.taker, spender),
    settlement === "permit2" ? reads.nonceBitmap(manifest.contracts.permit2, query.taker, 0n) : Promise.resolve(undefined),
    reads.balanceOf(buyToken.address, query.recipient),
    query.feeBps > 0 ? reads.balanceOf(buyToken.address, principal.integratorFeeRecipient) : Promise.resolve(1n),
    gasless === undefined || !query.gasless ? Promise.resolve(1n) : reads.balanceOf(sellToken.address, gasless.feeRecipient),
  ]);

  const mode = settlementModeOf(query.gasless, sellsNative, settlement);
  const gasFactors = (freshNonceWord: boolean, relayerFeePaid: boolean) => ({
    settlement: mode,
    hops: plan.hops.length,
    splitLegs: plan.legs.length > 1 ? plan.legs.length : 0,
    hopsStartingOracle: 0,
    // Each hop's gas by its venue's model (V2: constant plus the oracle's first write).
    hopGas: legsHopGas(plan.legs),
    wrap: plan.wraps,
    unwrap: plan.unwraps,
    buysNative: plan.buysNative,
    fee: query.feeBps > 0,
    freshNonceWord,
    recipientEmpty: recipientBalance === 0n,
    feeRecipientEmpty: feeRecipientBalance === 0n,
    relayerFeeRecipientEmpty: relayerFeePaid && relayerFeeRecipientBalance === 0n,
    exactOutput,
  });
  const { tx, permit2, permit2Nonce, relayerFee, tokenPermit } = await SETTLEMENT_MODES[mode]({
    engine,
    reads,
    chain,
    query,
    kind,
    sellToken,
    weth,
    router,
    holder,
    order,
    encoding,
    maxInput,
    allowance,
    takerIsContract,
    exactOutput,
    nowMs,
    deadline,
    baseFeePerGas: block.baseFeePerGas,
    tip,
    fees,
    pools,
    gasless,
    gasFactors,
  });
  const gasPrice = block.baseFeePerGas + tip;
  const l1FeeWei = l1DataFeeWei(fees.l1, tx.data);
  // The taker's debit at most: the sell amount (or maximum input), plus the relayer's fee on top for a gasless quote.
  const debit = maxInput + (relayerFee?.amount ?? 0n);

  return {
    quoteId: randomUUID(),
    quoteIdBytes32,
    chainId: chain.chainId,
    blockNumber,
    sellToken: sellToken.address,
    buyToken: buyToken.address,
    sellAmount,
    maxSellAmount,
    buyAmount,
    minBuyAmount,
    hops: plan.hops,
    legs: plan.legs,
    platformFee: { token: buyToken.address, symbol: buyToken.symbol, decimals: buyToken.decimals, amount: feeAmount, bps: query.feeBps, recipient: principal.integratorFeeRecipient },
    settlement,
    expiresAt: new Date(Number(deadline) * 1000),
    router,
    relayerFee,
    taker: query.taker,
    slippageBps: query.slippageBps,
    routeStats: plan.stats,
    integratorSlug: principal.integratorSlug,
    order,
    tx,
    permit2,
    permit2Nonce,
    networkFee: { gas: tx.estimatedGas, gasPrice, l1FeeWei, amount: BigInt(tx.estimatedGas) * gasPrice + l1FeeWei },
    taxes,
    signatureKind: query.gasless ? (takerIsContract ? "eip1271" : "eoa") : undefined,
    tokenPermit,
    issues: {
      allowance: spender !== undefined && allowance !== undefined && allowance < debit ? { spender, actual: allowance } : null,
      balance: sellBalance < debit ? { token: sellToken.address, actual: sellBalance, expected: debit } : null,
      simulationIncomplete: engine.pools.unreadableCount > 0,
    },
  };
}

/** An exact-output quote's maximum input: the input at the quote's block plus the slippage tolerance, rounded up. */
export function maxInputOf(amountIn: bigint, slippageBps: number): bigint {
  return (amountIn * (BPS + BigInt(slippageBps)) + BPS - 1n) / BPS;
}


/**
 * `auto` settles ERC20 sells by Permit2 signature when the taker is a plain wallet, and by allowance
 * for native sells and for contract takers (a smart wallet cannot produce the 65-byte signature).
 * An explicit `permit2` fails instead of falling back; a gasless quote for a contract taker settles
 * by Permit2 with the wallet's ERC-1271 signature (GaslessTokenPermit.swapGaslessFromContract).
 */
function chooseSettlement(query: QuoteQuery, sellsNative: boolean, takerIsContract: boolean): QuoteSettlement {
  if (sellsNative) return "allowance";
  if (query.settlement === "allowance") return "allowance";
  if (!takerIsContract) return "permit2";
  // A smart-wallet taker signs the gasless order through ERC-1271, which Permit2 checks on chain; the
  // exact-output gasless entry point takes only a 65-byte signature.
  if (query.gasless && query.buyAmount !== undefined) {
    throw new ApiError("invalid_request", `buy_amount with permit2_owner (a gasless exact-output quote) needs a 65-byte wallet signature, but taker ${query.taker} is a contract; quote with sell_amount instead`);
  }
  if (query.gasless) return "permit2";
  if (query.settlement === "permit2") {
    throw new ApiError("invalid_request", `settlement permit2 needs a 65-byte wallet signature, but taker ${query.taker} is a contract; use settlement=allowance or auto`);
  }
  return "allowance";
}
