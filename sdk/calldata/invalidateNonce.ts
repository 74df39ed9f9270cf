import { encodeFunctionData, type Hex } from "viem";
import { permit2Abi } from "../abis/permit2Abi";

/** Permit2's unordered nonces are a bitmap: nonce `n` is bit `n & 255` of word `n >> 8` of the owner's map. */
export type Permit2NonceBit = { wordPos: bigint; mask: bigint };

const MAX_NONCE = (1n << 256n) - 1n;

/** The word and the one-bit mask of `nonce` in Permit2's `nonceBitmap(owner, wordPos)`. */
export function permit2NonceBit(nonce: bigint): Permit2NonceBit {
  if (nonce < 0n || nonce > MAX_NONCE) throw new RangeError(`a Permit2 nonce is a uint256; got ${nonce}`);
  return { wordPos: nonce >> 8n, mask: 1n << (nonce & 0xffn) };
}

/**
 * Calldata of Permit2's `invalidateUnorderedNonces(wordPos, mask)` that spends exactly `nonce`: sent
 * to Permit2 by the signer (the taker), it makes every signature over that nonce unusable on chain,
 * whoever holds a copy. It flips only this bit; other nonces of the same word stay usable.
 *
 * @example
 * const data = encodeInvalidateNonce(BigInt(quote.permit2.message.nonce));
 * await wallet.sendTransaction({ to: PERMIT2_ADDRESS, data });
 */
export function encodeInvalidateNonce(nonce: bigint): Hex {
  const { wordPos, mask } = permit2NonceBit(nonce);
  return encodeFunctionData({ abi: permit2Abi, functionName: "invalidateUnorderedNonces", args: [wordPos, mask] });
}
