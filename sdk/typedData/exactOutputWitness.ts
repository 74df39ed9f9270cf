import type { Address } from "viem";
import { hashRouteActions } from "../calldata/routeActions";
import type { ExactOutputOrder } from "../calldata/exactOutputOrder";
import type { Permit2Domain, RelayerFee } from "./permit2Witness";

/**
 * EIP-712 fields of the exact-output witnesses, in the order the routers hash them
 * (ExactOutputWitnessHash.sol): the output and the maximum input are both bound.
 */
const exactOutputFields = [
  { name: "recipient", type: "address" },
  { name: "buyToken", type: "address" },
  { name: "buyAmount", type: "uint256" },
  { name: "maxSellAmount", type: "uint256" },
  { name: "deadline", type: "uint256" },
  { name: "quoteId", type: "bytes32" },
  { name: "actionsHash", type: "bytes32" },
] as const;

const tokenPermissions = [
  { name: "token", type: "address" },
  { name: "amount", type: "uint256" },
] as const;

const permitFields = <const W extends string>(witnessType: W) =>
  [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: witnessType },
  ] as const;

export const exactOutputPermitTypes = {
  PermitWitnessTransferFrom: permitFields("ExactOutputWitness"),
  ExactOutputWitness: exactOutputFields,
  TokenPermissions: tokenPermissions,
} as const;

export const gaslessExactOutputPermitTypes = {
  PermitWitnessTransferFrom: permitFields("GaslessExactOutputWitness"),
  GaslessExactOutputWitness: [...exactOutputFields, { name: "relayerFee", type: "uint256" }, { name: "relayerFeeRecipient", type: "address" }],
  TokenPermissions: tokenPermissions,
} as const;

export type ExactOutputPermitParameters = {
  chainId: number;
  permit2: Address;
  /** The router that will call Permit2 (the permit's spender). */
  router: Address;
  order: ExactOutputOrder;
  nonce: bigint;
};

function witnessOf(order: ExactOutputOrder) {
  return {
    recipient: order.recipient,
    buyToken: order.buyToken,
    buyAmount: order.buyAmount,
    maxSellAmount: order.maxSellAmount,
    deadline: order.deadline,
    quoteId: order.quoteId,
    actionsHash: hashRouteActions(order.actions),
  };
}

function permit<const Types, const Witness>({ chainId, permit2, router, order, nonce }: ExactOutputPermitParameters, types: Types, amount: bigint, witness: Witness) {
  return {
    domain: { name: "Permit2", chainId, verifyingContract: permit2 } satisfies Permit2Domain,
    types,
    primaryType: "PermitWitnessTransferFrom" as const,
    message: { permitted: { token: order.sellToken, amount }, spender: router, nonce, deadline: order.deadline, witness },
  };
}

/** The Permit2 typed data of a feature-2 exact-output swap: the permitted amount is `maxSellAmount`. */
export function buildExactOutputPermitTypedData(parameters: ExactOutputPermitParameters) {
  return permit(parameters, exactOutputPermitTypes, parameters.order.maxSellAmount, witnessOf(parameters.order));
}

/** The Permit2 typed data of a gasless exact-output swap: `maxSellAmount` plus the relayer fee, both bound. */
export function buildGaslessExactOutputPermitTypedData({ relayerFee, relayerFeeRecipient, ...parameters }: ExactOutputPermitParameters & RelayerFee) {
  return permit(parameters, gaslessExactOutputPermitTypes, parameters.order.maxSellAmount + relayerFee, {
    ...witnessOf(parameters.order),
    relayerFee,
    relayerFeeRecipient,
  });
}
