import { hashRouteActions } from "../calldata/routeActions";
import type { SwapOrder } from "../calldata/swapOrder";
import type { Address, Hex } from "viem";

/** EIP-712 fields of the witness types, in the order the routers hash them. */
const witnessFields = [
  { name: "recipient", type: "address" },
  { name: "buyToken", type: "address" },
  { name: "minBuyAmount", type: "uint256" },
  { name: "deadline", type: "uint256" },
  { name: "quoteId", type: "bytes32" },
  { name: "actionsHash", type: "bytes32" },
] as const;

const tokenPermissions = [
  { name: "token", type: "address" },
  { name: "amount", type: "uint256" },
] as const;

/** Permit2's domain has no version field. */
const eip712Domain = [
  { name: "name", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;

export const swapPermitTypes = {
  PermitWitnessTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: "SwapWitness" },
  ],
  SwapWitness: witnessFields,
  TokenPermissions: tokenPermissions,
} as const;

export const gaslessPermitTypes = {
  PermitWitnessTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: "GaslessSwapWitness" },
  ],
  GaslessSwapWitness: [...witnessFields, { name: "relayerFee", type: "uint256" }, { name: "relayerFeeRecipient", type: "address" }],
  TokenPermissions: tokenPermissions,
} as const;

export type Permit2Domain = { name: "Permit2"; chainId: number; verifyingContract: Address };

export type SwapWitness = {
  recipient: Address;
  buyToken: Address;
  minBuyAmount: bigint;
  deadline: bigint;
  quoteId: Hex;
  actionsHash: Hex;
};

export type PermitTypedDataParameters = {
  chainId: number;
  permit2: Address;
  /** The router that will call Permit2 (the permit's spender). */
  router: Address;
  order: SwapOrder;
  nonce: bigint;
};

function witnessOf(order: SwapOrder): SwapWitness {
  return {
    recipient: order.recipient,
    buyToken: order.buyToken,
    minBuyAmount: order.minBuyAmount,
    deadline: order.deadline,
    quoteId: order.quoteId,
    actionsHash: hashRouteActions(order.actions),
  };
}

/**
 * A PermitWitnessTransferFrom of `amount` of the sell token to `router`, with `witness`: the shape
 * both routers' typed data share. The deadline is the order's.
 */
function permitWitnessTransfer<const Types, const Witness>(
  { chainId, permit2, router, order, nonce }: PermitTypedDataParameters,
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
 * The Permit2 typed data the taker signs for a feature-2 permit swap. Ready for viem's
 * `signTypedData`; `withDomainType` adds `EIP712Domain` to `types` for wallets that want it.
 */
export function buildSwapPermitTypedData(parameters: PermitTypedDataParameters) {
  return permitWitnessTransfer(parameters, swapPermitTypes, parameters.order.sellAmount, witnessOf(parameters.order));
}

/** What a gasless taker pays its relayer, in the sell token, and to whom: both are signed. */
export type RelayerFee = { relayerFee: bigint; relayerFeeRecipient: Address };

/**
 * The Permit2 typed data the taker signs for a gasless (feature-3) swap: the permit covers the sell
 * amount plus the relayer fee, and the witness binds that fee and the address it is paid to.
 */
export function buildGaslessPermitTypedData({ relayerFee, relayerFeeRecipient, ...parameters }: PermitTypedDataParameters & RelayerFee) {
  return permitWitnessTransfer(parameters, gaslessPermitTypes, parameters.order.sellAmount + relayerFee, {
    ...witnessOf(parameters.order),
    relayerFee,
    relayerFeeRecipient,
  });
}

/** `types` with `EIP712Domain` included, as the quote response carries it. */
export function withDomainType<T extends Record<string, readonly { name: string; type: string }[]>>(types: T) {
  return { EIP712Domain: eip712Domain, ...types };
}
