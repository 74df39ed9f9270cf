import type { Address } from "viem";
import { ApiError } from "../../../sdk/server/apiError";
import type { GaslessConfig } from "../../config";
import type { PricedMarket } from "../routing/poolGraph";
import { searchRoute } from "../routing/prunedRouteSearch";

const BPS = 10_000n;

/** What a gasless taker pays the relayer, in the sell token, and how it was priced. */
export type RelayerFeeQuote = Readonly<{
  amount: bigint;
  /**
   * Gas the fee is priced on: the gas limit the relayer signs (the modelled gas with headroom, plus
   * the worst case of every native payout; sdk relayGasLimit), not the gas the swap is expected to use.
   */
  gas: number;
  /** Wei per gas the fee assumes: the quoted block's base fee plus the tip (the node's, at most the relayer's). */
  gasPrice: bigint;
  /** The L1 data cost of the relay's calldata, in wei (0 without L1_FEE_MODEL). */
  l1FeeWei: bigint;
  recipient: Address;
  /** The fee's worth in wei (the gas limit × gas price × margin); undefined when gas is sponsored. */
  costWei: bigint | undefined;
}>;

/**
 * Prices the relayer's fee: (the relayer's gas limit × (base fee + tip) + L1 data cost) × (1 + margin), converted into the sell
 * token through the same pools the router uses (as if that much WETH were sold for it), rounded up.
 * The operator may sponsor gas: the fee is then zero. WETH as a sell token needs no conversion.
 */
export function priceRelayerFee(parameters: {
  config: GaslessConfig;
  gas: number;
  baseFeePerGas: bigint;
  /** The tip to price with: the node's suggestion capped by RELAYER_PRIORITY_FEE_GWEI (cappedPriorityFee). */
  priorityFeePerGas: bigint;
  l1FeeWei: bigint;
  /** Lowercase. */
  sellToken: Address;
  weth: Address;
  pools: PricedMarket;
  sellSymbol: string;
}): RelayerFeeQuote {
  const { config, gas, baseFeePerGas, l1FeeWei, sellToken, weth, pools } = parameters;
  const gasPrice = baseFeePerGas + parameters.priorityFeePerGas;
  if (config.sponsorGas) return { gas, gasPrice, l1FeeWei, recipient: config.feeRecipient, amount: 0n, costWei: undefined };
  const costWei = ((BigInt(gas) * gasPrice + l1FeeWei) * (BPS + BigInt(config.feeMarginBps)) + BPS - 1n) / BPS;
  const base = { gas, gasPrice, l1FeeWei, recipient: config.feeRecipient, costWei };
  if (costWei === 0n) return { ...base, amount: 0n };
  if (sellToken === weth) return { ...base, amount: costWei };
  const route = searchRoute(pools, weth, sellToken, costWei);
  if (route === undefined || route.amountOut === 0n) {
    throw new ApiError("no_route", `the relayer fee cannot be priced in sell_token ${parameters.sellSymbol}: no pool route from WETH to it`);
  }
  return { ...base, amount: route.amountOut + 1n };
}
