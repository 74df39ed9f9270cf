import { getAbiItem, type AbiFunction, type Address, type Hex } from "viem";
import { allowanceHolderAbi } from "../abis/allowanceHolderAbi";
import { gaslessExactOutputRouterAbi } from "../abis/gaslessExactOutputRouterAbi";
import { gaslessSwapRouterAbi } from "../abis/gaslessSwapRouterAbi";
import { takerExactOutputRouterAbi } from "../abis/takerExactOutputRouterAbi";
import { takerSwapRouterAbi } from "../abis/takerSwapRouterAbi";
import { hashRouteActions } from "../calldata/routeActions";
import type { ExactOutputOrder } from "../calldata/exactOutputOrder";
import type { SwapOrder } from "../calldata/swapOrder";

type TypedField = Readonly<{ name: string; type: string }>;

const tokenPermissions = [
  { name: "token", type: "address" },
  { name: "amount", type: "uint256" },
] as const;

/** What a gasless witness adds to its kind's fields: the relayer's fee and who is paid it, both signed. */
const relayerFeeFields = [
  { name: "relayerFee", type: "uint256" },
  { name: "relayerFeeRecipient", type: "address" },
] as const;

/** Permit2's PermitWitnessTransferFrom with a witness of type `W`: the same for every kind. */
function permitWitnessTypes<const W extends string, const F extends readonly TypedField[]>(witnessType: W, fields: F) {
  const permit = [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: witnessType },
  ] as const;
  return { PermitWitnessTransferFrom: permit, [witnessType]: fields, TokenPermissions: tokenPermissions } as {
    readonly PermitWitnessTransferFrom: typeof permit;
    readonly TokenPermissions: typeof tokenPermissions;
  } & { readonly [K in W]: F };
}

/** The router functions of one kind, one per settlement mode; `allowance` is what the allowance holder's exec calls. */
export type SettlementFunctions = Readonly<{ permit: AbiFunction; native: AbiFunction; allowance: AbiFunction; gasless: AbiFunction }>;

/**
 * Everything that differs between order kinds, declared once per kind: the witness's EIP-712 fields in
 * the order the routers hash them (the kind's WitnessHash library in contracts/libraries), the witness a
 * given order signs, the amount Permit2 permits, and the router functions of each settlement mode.
 * Typed data, calldata encoding and decoding take a kind; a new kind is one more definition here.
 */
export type OrderKind<Order, Types, GaslessTypes, Witness = Record<string, Address | Hex | bigint>> = Readonly<{
  name: "exactInput" | "exactOutput";
  /** The EIP-712 types of the feature-2 permit and of the gasless one. */
  permitTypes: Types;
  gaslessPermitTypes: GaslessTypes;
  /** The witness struct of `order` (without the gasless fee fields). */
  witnessOf: (order: Order) => Witness;
  /** What the taker lets Permit2 move before the relayer fee: the sell amount, or the most it may be. */
  permitted: (order: Order) => bigint;
  functions: SettlementFunctions;
}>;

function defineOrderKind<Order, Witness, const W extends string, const GW extends string, const F extends readonly TypedField[]>(definition: {
  name: "exactInput" | "exactOutput";
  witnessType: W;
  gaslessWitnessType: GW;
  fields: F;
  witnessOf: (order: Order) => Witness;
  permitted: (order: Order) => bigint;
  functions: SettlementFunctions;
}) {
  return {
    name: definition.name,
    permitTypes: permitWitnessTypes(definition.witnessType, definition.fields),
    gaslessPermitTypes: permitWitnessTypes(definition.gaslessWitnessType, [...definition.fields, ...relayerFeeFields] as const),
    witnessOf: definition.witnessOf,
    permitted: definition.permitted,
    functions: definition.functions,
  } satisfies OrderKind<Order, unknown, unknown, Witness>;
}

/** Sell exactly `sellAmount`, receive at least `minBuyAmount` (ISwapSettlement; its witness in OrderWitnessHash.sol). */
export const EXACT_INPUT = defineOrderKind({
  name: "exactInput",
  witnessType: "SwapWitness",
  gaslessWitnessType: "GaslessSwapWitness",
  fields: [
    { name: "recipient", type: "address" },
    { name: "buyToken", type: "address" },
    { name: "minBuyAmount", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "quoteId", type: "bytes32" },
    { name: "actionsHash", type: "bytes32" },
  ],
  witnessOf: (order: SwapOrder) => ({
    recipient: order.recipient,
    buyToken: order.buyToken,
    minBuyAmount: order.minBuyAmount,
    deadline: order.deadline,
    quoteId: order.quoteId,
    actionsHash: hashRouteActions(order.actions),
  }),
  permitted: (order: SwapOrder) => order.sellAmount,
  functions: {
    permit: getAbiItem({ abi: takerSwapRouterAbi, name: "swapWithPermit" }),
    native: getAbiItem({ abi: takerSwapRouterAbi, name: "swapNative" }),
    allowance: getAbiItem({ abi: takerSwapRouterAbi, name: "swapWithAllowance" }),
    gasless: getAbiItem({ abi: gaslessSwapRouterAbi, name: "swapGasless" }),
  },
});

/** Receive exactly `buyAmount`, spend at most `maxSellAmount` (IExactOutputSettlement; its witness in OrderWitnessHash.sol). */
export const EXACT_OUTPUT = defineOrderKind({
  name: "exactOutput",
  witnessType: "ExactOutputWitness",
  gaslessWitnessType: "GaslessExactOutputWitness",
  fields: [
    { name: "recipient", type: "address" },
    { name: "buyToken", type: "address" },
    { name: "buyAmount", type: "uint256" },
    { name: "maxSellAmount", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "quoteId", type: "bytes32" },
    { name: "actionsHash", type: "bytes32" },
  ],
  witnessOf: (order: ExactOutputOrder) => ({
    recipient: order.recipient,
    buyToken: order.buyToken,
    buyAmount: order.buyAmount,
    maxSellAmount: order.maxSellAmount,
    deadline: order.deadline,
    quoteId: order.quoteId,
    actionsHash: hashRouteActions(order.actions),
  }),
  permitted: (order: ExactOutputOrder) => order.maxSellAmount,
  functions: {
    permit: getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputWithPermit" }),
    native: getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputNative" }),
    allowance: getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputWithAllowance" }),
    gasless: getAbiItem({ abi: gaslessExactOutputRouterAbi, name: "swapGaslessExactOutput" }),
  },
});

/** The allowance holder's `exec(operator, data)`, which every kind's allowance settlement goes through. */
export const ALLOWANCE_HOLDER_EXEC = getAbiItem({ abi: allowanceHolderAbi, name: "exec" });

/** The order type a kind settles. */
export type OrderOf<K> = K extends OrderKind<infer Order, unknown, unknown, unknown> ? Order : never;
export type AnyOrderKind = typeof EXACT_INPUT | typeof EXACT_OUTPUT;
