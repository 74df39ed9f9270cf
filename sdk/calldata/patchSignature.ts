import { size, type Hex } from "viem";
import { SignatureLengthError, SignatureOffsetError } from "../errors/calldata";
import { SIGNATURE_BYTES } from "./signaturePlaceholder";

/** Normalises a signature to lowercase 0x-hex of exactly 65 bytes, or throws SignatureLengthError. */
export function normaliseSignature(signature: string): Hex {
  const body = signature.startsWith("0x") || signature.startsWith("0X") ? signature.slice(2) : signature;
  if (body.length !== SIGNATURE_BYTES * 2 || !/^[0-9a-fA-F]+$/.test(body)) throw new SignatureLengthError(signature);
  return `0x${body.toLowerCase()}`;
}

/**
 * Writes the taker's 65-byte signature over the placeholder at byte `offset` of `data` (hex position
 * offset × 2), leaving every other byte as it was.
 *
 * @example patchSignature(quote.tx.data, quote.tx.signature_offset, await wallet.signTypedData(quote.permit2))
 */
export function patchSignature(data: Hex, offset: number, signature: string): Hex {
  const normalised = normaliseSignature(signature);
  const dataBytes = size(data);
  if (!Number.isInteger(offset) || offset < 36 || offset + SIGNATURE_BYTES > dataBytes) throw new SignatureOffsetError(offset, dataBytes);
  const start = 2 + offset * 2;
  // The ABI length word just before a bytes argument's content: a wrong offset would point elsewhere.
  if (BigInt(`0x${data.slice(start - 64, start)}`) !== BigInt(SIGNATURE_BYTES)) throw new SignatureOffsetError(offset, dataBytes);
  return `${data.slice(0, start)}${normalised.slice(2)}${data.slice(start + SIGNATURE_BYTES * 2)}` as Hex;
}
