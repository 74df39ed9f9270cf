import type { Address, Hex } from "viem";
import type { ExactOutputOrder } from "../calldata/exactOutputOrder";
import type { SwapOrder } from "../calldata/swapOrder";
import { EXACT_INPUT, EXACT_OUTPUT, type OrderKind } from "../orders/orderKinds";

/** Permit2's domain has no version field. */
const eip712Domain = [
  { name: "name", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;

export type Permit2Domain = { name: "Permit2"; chainId: number; verifyingContract: Address };

/** The exact-input witness (EXACT_INPUT's fields), as the routers hash it. */
export type SwapWitness = {
  recipient: Address;
  buyToken: Address;
  minBuyAmount: bigint;
  deadline: bigint;
  quoteId: Hex;
  actionsHash: Hex;
};

export type PermitTypedDataParameters<Order = SwapOrder> = {
  chainId: number;
  permit2: Address;
  /** The router that will call Permit2 (the permit's spender). */
  router: Address;
  order: Order;
  nonce: bigint;
};
export type ExactOutputPermitParameters = PermitTypedDataParameters<ExactOutputOrder>;

/** What a gasless taker pays its relayer, in the sell token, and to whom: both are signed. */
export type RelayerFee = { relayerFee: bigint; relayerFeeRecipient: Address };

/** A PermitWitnessTransferFrom of `amount` of the sell token to `router`, with `witness`; the deadline is the order's. */
function permitWitnessTransfer<const Types, Witness>(
  { chainId, permit2, router, order, nonce }: PermitTypedDataParameters<{ sellToken: Address; deadline: bigint }>,
  types: Types,
  amount: bigint,
  witness: Witness,
) {
  return {
    domain: { name: "Permit2", chainId, verifyingContract: permit2 } satisfies Permit2Domain,
    types,
    primaryType: "PermitWitnessTransferFrom" as const,
    message: { permitted: { token: order.sellToken, amount }, spender: router, nonce, deadline: order.deadline, witness },
  };
}

/**
 * The Permit2 typed data the taker signs for a feature-2 permit swap of any order kind: the kind's
 * witness, and the amount the kind permits (the sell amount, or the most an exact-output order may spend).
 * Ready for viem's `signTypedData`; `withDomainType` adds `EIP712Domain` for wallets that want it.
 */
export function buildPermitTypedData<Order extends SwapOrder | ExactOutputOrder, const Types, GaslessTypes, Witness>(
  kind: OrderKind<Order, Types, GaslessTypes, Witness>,
  parameters: PermitTypedDataParameters<Order>,
) {
  return permitWitnessTransfer(parameters, kind.permitTypes, kind.permitted(parameters.order), kind.witnessOf(parameters.order));
}

/**
 * The Permit2 typed data of a gasless (feature-3) swap of any order kind: the permit covers the kind's
 * amount plus the relayer fee, and the witness binds that fee and the address it is paid to.
 */
export function buildGaslessTypedData<Order extends SwapOrder | ExactOutputOrder, Types, const GaslessTypes, Witness>(
  kind: OrderKind<Order, Types, GaslessTypes, Witness>,
  { relayerFee, relayerFeeRecipient, ...parameters }: PermitTypedDataParameters<Order> & RelayerFee,
) {
  return permitWitnessTransfer(parameters, kind.gaslessPermitTypes, kind.permitted(parameters.order) + relayerFee, {
    ...kind.witnessOf(parameters.order),
    relayerFee,
    relayerFeeRecipient,
  });
}

// The names integrators know, one per kind and mode.
export const swapPermitTypes = EXACT_INPUT.permitTypes;
export const gaslessPermitTypes = EXACT_INPUT.gaslessPermitTypes;
export const exactOutputPermitTypes = EXACT_OUTPUT.permitTypes;
export const gaslessExactOutputPermitTypes = EXACT_OUTPUT.gaslessPermitTypes;
/** buildPermitTypedData(EXACT_INPUT, …). */
export const buildSwapPermitTypedData = (parameters: PermitTypedDataParameters) => buildPermitTypedData(EXACT_INPUT, parameters);
/** buildGaslessTypedData(EXACT_INPUT, …). */
export const buildGaslessPermitTypedData = (parameters: PermitTypedDataParameters & RelayerFee) => buildGaslessTypedData(EXACT_INPUT, parameters);
/** buildPermitTypedData(EXACT_OUTPUT, …): the permitted amount is `maxSellAmount`. */
export const buildExactOutputPermitTypedData = (parameters: ExactOutputPermitParameters) => buildPermitTypedData(EXACT_OUTPUT, parameters);
/** buildGaslessTypedData(EXACT_OUTPUT, …): `maxSellAmount` plus the relayer fee, both bound. */
export const buildGaslessExactOutputPermitTypedData = (parameters: ExactOutputPermitParameters & RelayerFee) => buildGaslessTypedData(EXACT_OUTPUT, parameters);

/** `types` with `EIP712Domain` included, as the quote response carries it. */
export function withDomainType<T extends Record<string, readonly { name: string; type: string }[]>>(types: T) {
  return { EIP712Domain: eip712Domain, ...types };
}
