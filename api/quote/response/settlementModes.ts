import { maxUint256, type Address } from "viem";
import type { ExactOutputOrder, SwapOrder } from "../../../sdk";
import { l1DataFeeWei, type BlockFees } from "../../../sdk/chain/networkFeeModel";
import { CONTRACT_SIGNATURE_MODEL_GAS, TOKEN_PERMIT_MODEL_GAS } from "../../../sdk/relay/gaslessExtraGas";
import { nativePayoutsOf, relayGasLimit } from "../../../sdk/relay/relayGasLimit";
import type { ChainContext } from "../../chains/chainContext";
import type { GaslessConfig } from "../../config";
import type { SupportedToken } from "../../tokens/supportedTokens";
import type { QuoteQuery } from "../admission/quoteQuery";
import { estimateGas, type GasFactors } from "../gas/gasEstimate";
import { priceRelayerFee, type RelayerFeeQuote } from "../gas/relayerFee";
import type { PricedMarket } from "../routing/poolGraph";
import type { blockReads } from "../market/blockReads";
import { allocateNonce } from "../nonces/quoteNonce";
import type { Quote, QuoteEngine, QuoteKind } from "./buildQuote";
import type { OrderEncoding } from "./orderEncoding";
import { readTokenPermitOffer, type TokenPermitOffer } from "./tokenPermitOffer";

/**
 * How a quote's order reaches its router: relayed with a Permit2 witness signature (`gasless`), sent by
 * the taker with a Permit2 signature (`permit2`), sent with the ETH it sells (`native`), or through the
 * allowance holder (`allowance`).
 */
export type SettlementMode = "gasless" | "permit2" | "native" | "allowance";

/** Everything a settlement mode builds from: the order, its block and the taker's state at that block. */
export type SettlementContext = Readonly<{
  engine: QuoteEngine;
  reads: ReturnType<typeof blockReads>;
  chain: ChainContext;
  query: QuoteQuery;
  kind: QuoteKind;
  sellToken: SupportedToken;
  weth: Address;
  router: Address;
  /** The allowance holder an allowance quote is sent to. */
  holder: Address | undefined;
  order: SwapOrder | ExactOutputOrder;
  encoding: OrderEncoding;
  /** What the taker may be debited before a relayer fee: the sell amount, or the maximum input. */
  maxInput: bigint;
  /** The taker's allowance to the mode's spender (Permit2 or the holder), when there is one. */
  allowance: bigint | undefined;
  takerIsContract: boolean;
  exactOutput: boolean;
  nowMs: number;
  deadline: bigint;
  baseFeePerGas: bigint;
  tip: bigint;
  fees: BlockFees;
  pools: PricedMarket;
  /** Undefined unless the deployment has a relayer (buildQuote refuses a gasless quote without one). */
  gasless: GaslessConfig | undefined;
  gasFactors: (freshNonceWord: boolean, relayerFeePaid: boolean) => GasFactors;
}>;

/** What a mode adds to the quote: the transaction, and for signed modes what the taker signs. */
export type Settlement = Readonly<{
  tx: Quote["tx"];
  permit2?: Quote["permit2"];
  permit2Nonce?: bigint;
  relayerFee?: RelayerFeeQuote;
  tokenPermit?: TokenPermitOffer;
}>;

/** The mode of a quote: gasless quotes always settle by Permit2 (chooseSettlement), native sells by allowance. */
export function settlementModeOf(gasless: boolean, sellsNative: boolean, settlement: "permit2" | "allowance"): SettlementMode {
  if (gasless) return "gasless";
  if (settlement === "permit2") return "permit2";
  return sellsNative ? "native" : "allowance";
}

async function gaslessSettlement(context: SettlementContext): Promise<Settlement> {
  const { engine, reads, chain, query, kind, encoding, gasless, takerIsContract, exactOutput, allowance, maxInput, router, sellToken } = context;
  const config = gasless!;
  const allocated = await allocateNonce(engine, reads, chain, query.taker, context.nowMs, Number(context.deadline) * 1000, kind);
  // The fee is part of the calldata it pays for: price it on a draft whose fee has no zero byte (the
  // most calldata gas a fee can add), on the gas limit the relayer will sign for it: the model's
  // headroom plus the worst case of every native payout, whatever the recipients do on chain.
  const draft = encoding.gasless(query.taker, { relayerFee: maxUint256, relayerFeeRecipient: config.feeRecipient }, allocated.nonce);
  // A smart-wallet taker's signature is checked by its own code; a token permit runs the token's.
  const signerGas = takerIsContract ? CONTRACT_SIGNATURE_MODEL_GAS : 0;
  const gasLimit = relayGasLimit(estimateGas(draft.data, draft.signatureOffset, context.gasFactors(allocated.freshWord, !config.sponsorGas)), nativePayoutsOf(context.order));
  const priceOn = (extraGas: number) =>
    priceRelayerFee({
      config,
      gas: Number(gasLimit + BigInt(extraGas)),
      baseFeePerGas: context.baseFeePerGas,
      priorityFeePerGas: context.tip,
      l1FeeWei: l1DataFeeWei(context.fees.l1, draft.data),
      sellToken: sellToken.address,
      weth: context.weth,
      pools: context.pools,
      sellSymbol: sellToken.symbol,
    });
  let relayerFee = priceOn(signerGas);
  let tokenPermit: TokenPermitOffer | undefined;
  // Permit2 not approved for the debit: offer the token's EIP-2612 permit, sent with the swap and
  // priced into the fee. A contract taker cannot sign an EIP-2612 permit (ecrecover only). The
  // exact-output entry point has no token-permit variant: such a taker approves Permit2 first.
  if (!exactOutput && !takerIsContract && allowance !== undefined && allowance < maxInput + relayerFee.amount) {
    const readable = await readTokenPermitOffer(chain.client, chain.chainId, sellToken.address, query.taker);
    if (readable !== undefined) {
      relayerFee = priceOn(signerGas + TOKEN_PERMIT_MODEL_GAS);
      tokenPermit = { ...readable, value: maxInput + relayerFee.amount, deadline: context.deadline };
    }
  }
  const fee = { relayerFee: relayerFee.amount, relayerFeeRecipient: relayerFee.recipient };
  const { data, signatureOffset } = encoding.gasless(query.taker, fee, allocated.nonce);
  // A price has nothing to sign: its typed data is not built. tx is the plain swapGasless; the
  // relayed entry point's extra gas is added to the relay's gas limit (relayGasLimitOfCalldata).
  const permit2 = kind === "firm" ? encoding.gaslessTypedData({ chainId: chain.chainId, permit2: chain.manifest.contracts.permit2, router, nonce: allocated.nonce }, fee) : undefined;
  const estimatedGas = estimateGas(data, signatureOffset, context.gasFactors(allocated.freshWord, relayerFee.amount > 0n));
  return { tx: { to: router, data, value: 0n, signatureOffset, estimatedGas }, permit2, permit2Nonce: allocated.nonce, relayerFee, tokenPermit };
}

async function permitSettlement(context: SettlementContext): Promise<Settlement> {
  const { engine, reads, chain, query, kind, encoding, router } = context;
  const allocated = await allocateNonce(engine, reads, chain, query.taker, context.nowMs, Number(context.deadline) * 1000, kind);
  const { data, signatureOffset } = encoding.permit(allocated.nonce);
  const permit2 = kind === "firm" ? encoding.permitTypedData({ chainId: chain.chainId, permit2: chain.manifest.contracts.permit2, router, nonce: allocated.nonce }) : undefined;
  const estimatedGas = estimateGas(data, signatureOffset, context.gasFactors(allocated.freshWord, false));
  return { tx: { to: router, data, value: 0n, signatureOffset, estimatedGas }, permit2, permit2Nonce: allocated.nonce };
}

async function nativeSettlement(context: SettlementContext): Promise<Settlement> {
  // Exact output: the maximum is sent, and the router refunds what the route did not need.
  const data = context.encoding.native();
  return { tx: { to: context.router, data, value: context.maxInput, signatureOffset: undefined, estimatedGas: estimateGas(data, undefined, context.gasFactors(false, false)) } };
}

async function allowanceSettlement(context: SettlementContext): Promise<Settlement> {
  const data = context.encoding.allowance(context.router);
  return { tx: { to: context.holder!, data, value: 0n, signatureOffset: undefined, estimatedGas: estimateGas(data, undefined, context.gasFactors(false, false)) } };
}

/** One strategy per mode: a new way to settle is one more entry. */
export const SETTLEMENT_MODES: Readonly<Record<SettlementMode, (context: SettlementContext) => Promise<Settlement>>> = {
  gasless: gaslessSettlement,
  permit2: permitSettlement,
  native: nativeSettlement,
  allowance: allowanceSettlement,
};
