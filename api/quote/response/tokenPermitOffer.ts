import type { Address, PublicClient } from "viem";
import { buildTokenPermitTypedData, readTokenPermitDomain, tokenPermitTypes, type TokenPermitDomain } from "../../../sdk";

/**
 * The EIP-2612 permit a gasless quote offers as its `approval`: the taker signs
 * `token.permit(owner = taker, spender = Permit2, value, deadline)` and the relayer sends it with the
 * swap (GaslessTokenPermit.swapGaslessWithTokenPermit). `value` is exactly the quote's debit (sell
 * amount plus relayer fee): a copied or leaked permit then grants Permit2 nothing beyond this trade,
 * and no standing allowance is left for a later Permit2 signature to spend (docs/integrators/gasless.md, "A first trade
 * with no ETH").
 */
export type TokenPermitOffer = { domain: TokenPermitDomain; nonce: bigint; value: bigint; deadline: bigint };

/** Why a gasless taker signs the way it does: a plain key (65 bytes) or its contract's ERC-1271 check. */
export type SignatureKind = "eoa" | "eip1271";

/**
 * The token's permit domain and the taker's permit nonce when the sell token has EIP-2612 the API can
 * read on chain, else undefined (the quote then has no `approval`: the taker approves Permit2 with a
 * transaction of its own).
 */
export async function readTokenPermitOffer(client: PublicClient, chainId: number, token: Address, taker: Address): Promise<Omit<TokenPermitOffer, "value" | "deadline"> | undefined> {
  return readTokenPermitDomain(client, token, chainId, taker);
}

const EIP712_DOMAIN = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;

/** The typed data of the offer, as a wallet signs it (bigints as decimal strings, EIP712Domain in `types`, as `permit2` has). */
export function tokenPermitTypedData(offer: TokenPermitOffer, owner: Address, spender: Address) {
  return buildTokenPermitTypedData({ domain: offer.domain, owner, spender, value: offer.value, nonce: offer.nonce, deadline: offer.deadline });
}

/** The quote's `approval` field. */
export function approvalJson(offer: TokenPermitOffer, owner: Address, spender: Address) {
  const { domain, primaryType, message } = tokenPermitTypedData(offer, owner, spender);
  return {
    type: "permit" as const,
    eip712: {
      domain,
      types: { EIP712Domain: EIP712_DOMAIN, ...tokenPermitTypes },
      primaryType,
      message: { ...message, value: message.value.toString(), nonce: message.nonce.toString(), deadline: message.deadline.toString() },
    },
  };
}
