import type { Hex } from "viem";

/** Every transaction's intrinsic gas (a call, not a contract creation). */
export const INTRINSIC_GAS = 21_000n;

const ZERO_DIGIT = "0".charCodeAt(0);

/** EIP-2028 calldata gas of `data`: 4 per zero byte, 16 per other byte. */
export function calldataGas(data: Hex): bigint {
  let gas = 0;
  for (let index = 2; index < data.length; index += 2) gas += data.charCodeAt(index) === ZERO_DIGIT && data.charCodeAt(index + 1) === ZERO_DIGIT ? 4 : 16;
  return BigInt(gas);
}
