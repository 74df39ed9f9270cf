import type { Address } from "viem";

/** Permit2's canonical address; the devnet places Uniswap's build there, as on public chains. */
export const PERMIT2_ADDRESS: Address = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
