/**
 * Gas a gasless relay spends beyond a plain `swapGasless`: the quote prices it into the relayer fee
 * when it offers the extra, and `relayGasLimitOfCalldata` adds it to the gas limit the relayer signs
 * for the entry point that spends it. The fee covers what the relayer pays.
 */

/**
 * The sell token's EIP-2612 `permit` inside `swapGaslessWithTokenPermit`: a fresh nonce slot, an
 * allowance slot written and (the permit is for exactly the debit) emptied again by Permit2's pull,
 * which refunds most of it, an ecrecover, the try/catch, the event and the permit's five words of
 * calldata. Measured on the devnet at about 26,000 over a plain `swapGasless`
 * (test/relayer/gaslessWallets.test.ts keeps the quote's whole model within 15 % of gasUsed); the
 * relay's 50 % headroom covers a token whose permit costs twice that.
 */
export const TOKEN_PERMIT_MODEL_GAS = 40_000;

/**
 * Permit2's call to a smart-wallet taker's `isValidSignature` (a cold account, the wallet's own check:
 * an ecrecover for the devnet's owner-signed wallet, more for a multisig) with a 65-byte signature.
 * A wallet whose check costs more fails the submission's simulation (422), since the relayer's gas
 * limit is built on this model; calldata beyond 65 signature bytes is added per byte (`relayGasLimitOfCalldata`).
 */
export const CONTRACT_SIGNATURE_MODEL_GAS = 40_000;

/** Calldata gas of one non-zero byte (EIP-2028): what each signature byte past 65 adds at most. */
export const CALLDATA_BYTE_GAS = 16;
