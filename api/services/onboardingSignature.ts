import { BaseError, encodeFunctionData, ExecutionRevertedError, hashMessage, HttpRequestError, isAddressEqual, isHex, numberToHex, recoverMessageAddress, RpcRequestError, size, sliceHex, TimeoutError, type Address, type Hex } from "viem";
import type { SignatureVerifierClient } from "../apiDependencies";

/**
 * The suffixes that mark a wrapped signature: ERC-6492 (deploy or prepare a wallet first, then ask
 * it) and ERC-8010 (an EIP-7702 authorization to apply first). Verifying either means running code
 * the signer chose before the check itself; the API does not.
 */
const WRAPPED_SIGNATURE_SUFFIXES: readonly Hex[] = [`0x${"6492".repeat(16)}`, `0x${"8010".repeat(16)}`];

/** ERC-1271's answer for a valid signature: `isValidSignature(bytes32,bytes)`'s selector. */
const ERC1271_MAGIC_VALUE = "0x1626ba7e";

const erc1271Abi = [
  {
    type: "function",
    name: "isValidSignature",
    stateMutability: "view",
    inputs: [
      { name: "hash", type: "bytes32" },
      { name: "signature", type: "bytes" },
    ],
    outputs: [{ name: "magicValue", type: "bytes4" }],
  },
] as const;

/** Whether `signature` is wrapped (ERC-6492 or ERC-8010): refused before any work. */
export function isWrappedSignature(signature: Hex): boolean {
  if (size(signature) < 32) return false;
  const suffix = sliceHex(signature, -32).toLowerCase();
  return WRAPPED_SIGNATURE_SUFFIXES.includes(suffix as Hex);
}

/**
 * Whether `signature` is `wallet`'s key's EIP-191 signature over `message`, by recovering the signer
 * locally: no RPC call. False (never a throw) for anything that is not a recoverable ECDSA signature.
 */
export async function isKeySignature(wallet: Address, message: string, signature: Hex): Promise<boolean> {
  try {
    return isAddressEqual(await recoverMessageAddress({ message, signature }), wallet);
  } catch {
    return false;
  }
}

/** Thrown when a contract wallet's check did not answer within its time limit. */
export class ContractSignatureTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the wallet's isValidSignature call did not answer within ${timeoutMs} ms`);
    this.name = "ContractSignatureTimeout";
  }
}

export type ContractSignatureCheck = Readonly<{ gas: number; timeoutMs: number }>;

/**
 * Whether the contract at `wallet` accepts `signature` over `message` (ERC-1271), asked with one
 * eth_call of at most `limits.gas` gas that must answer within `limits.timeoutMs`. A wallet without
 * code is a plain key that did not sign (false, after one eth_getCode). A revert, running out of
 * gas, or any answer but the magic value is false; a node that cannot be reached throws (viem's
 * transport errors), as does the time limit (ContractSignatureTimeout).
 */
export function isContractSignature(client: SignatureVerifierClient, wallet: Address, message: string, signature: Hex, limits: ContractSignatureCheck): Promise<boolean> {
  return isContractSignatureOfHash(client, wallet, hashMessage(message), signature, limits);
}

/**
 * `isContractSignature` over a digest the caller computed (a gasless order's EIP-712 hash, which
 * Permit2 hands the wallet on chain), with the same gas and time limits and the same answers.
 */
export async function isContractSignatureOfHash(client: SignatureVerifierClient, wallet: Address, hash: Hex, signature: Hex, limits: ContractSignatureCheck): Promise<boolean> {
  return withTimeout(limits.timeoutMs, async () => {
    // Plain JSON-RPC requests, not viem's actions: viem's `call` would follow an EIP-3668
    // OffchainLookup revert by fetching URLs the wallet names (a request forged from our server).
    const code = await client.request({ method: "eth_getCode", params: [wallet, "latest"] });
    if (code === undefined || code === "0x" || code === "0x0") return false;
    const data = encodeFunctionData({ abi: erc1271Abi, functionName: "isValidSignature", args: [hash, signature] });
    let answer: Hex;
    try {
      answer = await client.request({ method: "eth_call", params: [{ to: wallet, data, gas: numberToHex(limits.gas) }, "latest"] });
    } catch (error) {
      // A revert, running out of gas, an invalid opcode: the wallet's code said no.
      if (!isTransportFailure(error)) return false;
      throw error;
    }
    // The answer is an ABI-encoded bytes4: the selector, left-aligned in one 32-byte word.
    return isHex(answer) && size(answer) === 32 && sliceHex(answer, 0, 4).toLowerCase() === ERC1271_MAGIC_VALUE;
  });
}

/**
 * A node that did not answer (unreachable, an HTTP failure, a timeout), as opposed to any JSON-RPC error
 * answer: a revert, running out of gas, an invalid jump, too deep a call, whatever words the node uses,
 * all count as the wallet's code saying no. Were an unrecognised wording "unavailable", a wallet that
 * fails that way would get its check back and run at the gas cap again and again on one nonce.
 */
export function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  if (error.walk((cause) => cause instanceof RpcRequestError || cause instanceof ExecutionRevertedError) !== null) return false;
  return error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError) !== null;
}

async function withTimeout<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ContractSignatureTimeout(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
