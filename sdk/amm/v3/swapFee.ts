/** The largest fee, 100 % in hundredths of a bip (V4's MAX_SWAP_FEE). */
export const MAX_SWAP_FEE = 1_000_000;

/**
 * The fee a swap pays per step in one direction. A V3 pool's is its fee (its protocol fee is carved
 * out of that fee and changes no amount). A V4 pool packs a protocol fee per direction in 12 bits each
 * (zero-for-one low, one-for-zero high, in hundredths of a bip), and swaps at the LP fee combined with
 * it, as ProtocolFeeLibrary.calculateSwapFee: protocol + lp - protocol·lp / 10^6.
 */
export function swapFeePips(lpFee: number, protocolFee: number, zeroForOne: boolean): number {
  const directional = zeroForOne ? protocolFee & 0xfff : (protocolFee >>> 12) & 0xfff;
  if (directional === 0) return lpFee;
  return directional + lpFee - Math.floor((directional * lpFee) / MAX_SWAP_FEE);
}
