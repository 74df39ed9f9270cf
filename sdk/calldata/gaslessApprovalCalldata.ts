import { encodeFunctionData, parseAbi, parseSignature, type Address, type Hex } from "viem";
import { gaslessExactOutputRouterAbi } from "../abis/gaslessExactOutputRouterAbi";
import { gaslessTokenPermitAbi } from "../abis/gaslessTokenPermitAbi";
import type { ExactOutputOrder } from "./exactOutputOrder";
import { exactOutputSelector } from "./settlementCalldata";
import { normaliseSignature } from "./patchSignature";
import { GaslessCalldataError } from "../errors/calldata";
import { decodeSwapGasless, type SignedGaslessOrder } from "./gaslessBatchCalldata";
import { errorSummary } from "../errors/errorSummary";
import { functionDataDecoder } from "./functionDataDecoder";

const decodeExactOutputRouterCall = functionDataDecoder(gaslessExactOutputRouterAbi);
const decodeTokenPermitRouterCall = functionDataDecoder(gaslessTokenPermitAbi);

/** The router's MAX_CONTRACT_SIGNATURE_BYTES: the longest signature a smart-wallet taker may give. */
export const MAX_CONTRACT_SIGNATURE_BYTES = 2048;

/** The taker's EIP-2612 permit of the sell token to Permit2, as the router's TokenPermit takes it. */
export type TokenPermitSignature = { value: bigint; deadline: bigint; signature: Hex };

/** A signed gasless exact-output order: the arguments of `swapGaslessExactOutput`. */
export type SignedGaslessExactOutputOrder = Omit<SignedGaslessOrder, "params"> & { params: ExactOutputOrder };

/** One relayed gasless call: which entry point, its order, and the token permit it carries, if any. */
export type GaslessCall =
  | { kind: "swapGasless"; order: SignedGaslessOrder }
  | { kind: "withTokenPermit"; order: SignedGaslessOrder; tokenPermit: TokenPermitSignature }
  | { kind: "fromContract"; order: SignedGaslessOrder }
  /** `swapGaslessExactOutput`: goes alone, never in a batch (`swapGaslessBatch` takes exact-input orders only). */
  | { kind: "exactOutput"; order: SignedGaslessExactOutputOrder };

/** The order inside signed `swapGaslessExactOutput` calldata. */
function decodeSwapGaslessExactOutput(data: Hex): SignedGaslessExactOutputOrder {
  let decoded;
  try {
    decoded = decodeExactOutputRouterCall(data);
  } catch (error) {
    throw new GaslessCalldataError(errorSummary(error));
  }
  if (decoded.functionName !== "swapGaslessExactOutput") throw new GaslessCalldataError(`it calls ${decoded.functionName}`);
  const [params, taker, relayerFee, relayerFeeRecipient, nonce, signature] = decoded.args;
  return { params: { ...params }, taker, relayerFee, relayerFeeRecipient, nonce, signature: normaliseSignature(signature) };
}

function tokenPermitArgument(permit: TokenPermitSignature) {
  const { r, s, v, yParity } = parseSignature(permit.signature);
  return { value: permit.value, deadline: permit.deadline, v: Number(v ?? BigInt(yParity + 27)), r, s };
}

/** An EIP-2612 token's `permit`, as the router calls it before a `swapGaslessWithTokenPermit` order. */
export const erc2612PermitAbi = parseAbi(["function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)"]);

/**
 * The sell token's `permit(owner, spender, …)` call a `swapGaslessWithTokenPermit` makes from the
 * router (spender: Permit2), for simulating it.
 * @example encodeTokenPermitCall(taker, permit2, call.tokenPermit)
 */
export function encodeTokenPermitCall(owner: Address, spender: Address, permit: TokenPermitSignature): Hex {
  const { value, deadline, v, r, s } = tokenPermitArgument(permit);
  return encodeFunctionData({ abi: erc2612PermitAbi, functionName: "permit", args: [owner, spender, value, deadline, v, r, s] });
}

/**
 * `swapGaslessWithTokenPermit(order, tokenPermit)`: the sell token's permit to Permit2 and the swap in
 * one transaction. The order's signature may be a smart wallet's (any length up to the cap).
 *
 * @example encodeSwapGaslessWithTokenPermit({ ...order, signature }, { value, deadline, signature: approvalSignature })
 */
export function encodeSwapGaslessWithTokenPermit(order: SignedGaslessOrder, tokenPermit: TokenPermitSignature): Hex {
  return encodeFunctionData({ abi: gaslessTokenPermitAbi, functionName: "swapGaslessWithTokenPermit", args: [order, tokenPermitArgument(tokenPermit)] });
}

/** `swapGaslessFromContract(order)`: the order of a smart-wallet taker, whose ERC-1271 signature may have any length up to the cap. */
export function encodeSwapGaslessFromContract(order: SignedGaslessOrder): Hex {
  return encodeFunctionData({ abi: gaslessTokenPermitAbi, functionName: "swapGaslessFromContract", args: [order] });
}

/**
 * The call inside signed relay calldata: `swapGasless`, `swapGaslessWithTokenPermit`,
 * `swapGaslessFromContract` or `swapGaslessExactOutput`. Only `swapGasless` calls may join a batch;
 * the others go alone. Throws GaslessCalldataError for any other calldata.
 */
export function decodeGaslessCall(data: Hex): GaslessCall {
  if (data.slice(0, 10).toLowerCase() === exactOutputSelector.swapGaslessExactOutput) return { kind: "exactOutput", order: decodeSwapGaslessExactOutput(data) };
  let decoded;
  try {
    decoded = decodeTokenPermitRouterCall(data);
  } catch (error) {
    throw new GaslessCalldataError(errorSummary(error));
  }
  switch (decoded.functionName) {
    case "swapGasless":
      return { kind: "swapGasless", order: decodeSwapGasless(data) };
    case "swapGaslessWithTokenPermit": {
      const [order, permit] = decoded.args;
      const { r, s, v } = permit;
      const signature = `0x${r.slice(2)}${s.slice(2)}${v.toString(16).padStart(2, "0")}` as Hex;
      return { kind: "withTokenPermit", order: { ...order, params: { ...order.params } }, tokenPermit: { value: permit.value, deadline: permit.deadline, signature } };
    }
    case "swapGaslessFromContract": {
      const [order] = decoded.args;
      return { kind: "fromContract", order: { ...order, params: { ...order.params } } };
    }
    default:
      throw new GaslessCalldataError(`it calls ${decoded.functionName}`);
  }
}
