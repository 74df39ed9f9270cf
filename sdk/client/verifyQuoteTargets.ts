import { getAddress, isAddressEqual, type Address } from "viem";
import { PERMIT2_ADDRESS } from "../chain/permit2";
import { isNativeToken } from "../tokens/native";
import { ClientConfigError, UntrustedRouterError } from "../errors/client";
import { Feature } from "../registry/features";
import type { QuoteJson } from "../wire/quoteJson";
import { isExactOutputQuote, readExactOutputQuoteCall, readQuoteCall } from "./readQuoteCall";
import { assertRegisteredRouter } from "./routerCheck";
import type { ChainReader } from "./tradingWallet";

/** The on-chain contracts the client trusts independently of the API's answers. */
export type TrustedContracts = {
  /** The chain's router registry: the source of truth for routers. */
  routerRegistry: Address;
  /** The allowance holder takers approve for allowance settlement (needed only for such quotes). */
  allowanceHolder?: Address;
  /** The chain's Permit2 (its chain file's `permit2`, the manifest's `contracts.permit2`); default the canonical PERMIT2_ADDRESS, where Permit2 is on every chain that has it. */
  permit2?: Address;
};

function mustEqual(role: string, actual: Address, expected: Address, featureId: bigint): void {
  if (!isAddressEqual(actual, expected)) throw new UntrustedRouterError(role, getAddress(actual), featureId, [getAddress(expected)]);
}

/**
 * Checks every address of a quote that the taker would approve, sign for or call against on-chain
 * truth before anything is signed or sent: the router (`tx.to`, the Permit2 spender, or the allowance
 * holder's operator) must be the registry's `ownerOf` or `prev` for the quote's feature, Permit2 must be
 * the configured Permit2 (default the canonical one), and an allowance spender must be Permit2 or the configured allowance holder.
 * Returns the router the order executes on, as checked.
 */
export async function verifyQuoteTargets(reader: ChainReader, contracts: TrustedContracts, quote: QuoteJson): Promise<Address> {
  const featureId = BigInt(quote.gasless ? Feature.GaslessSwap : Feature.TakerSubmittedSwap);
  const registry = contracts.routerRegistry;
  // Native sells are `allowance` settlement too, but go straight to the router with tx.value.
  if (quote.settlement === "allowance" && !isNativeToken(quote.sell_token)) {
    const holder = contracts.allowanceHolder;
    if (holder === undefined) {
      throw new ClientConfigError(`quote ${quote.quote_id} settles through an allowance holder (${quote.tx.to}) the client cannot verify`, "Pass contracts.allowanceHolder to createTradingClient (the deployment's allowance holder), or quote with settlement permit2.");
    }
    mustEqual("tx.to (allowance holder)", quote.tx.to, holder, featureId);
    if (quote.issues.allowance !== null) mustEqual("issues.allowance.spender", quote.issues.allowance.spender, holder, featureId);
    const call = isExactOutputQuote(quote) ? readExactOutputQuoteCall(quote) : readQuoteCall(quote);
    if (call.kind === "allowance") await assertRegisteredRouter(reader, { registry, featureId, role: "allowance holder operator", address: call.operator });
    return call.kind === "allowance" ? call.operator : quote.tx.to;
  }
  await assertRegisteredRouter(reader, { registry, featureId, role: "tx.to", address: quote.tx.to });
  if (quote.permit2 !== undefined) {
    const permit2 = contracts.permit2 ?? PERMIT2_ADDRESS;
    mustEqual("permit2.domain.verifyingContract", quote.permit2.domain.verifyingContract, permit2, featureId);
    mustEqual("permit2.message.spender", quote.permit2.message.spender, quote.tx.to, featureId);
    if (quote.issues.allowance !== null) mustEqual("issues.allowance.spender", quote.issues.allowance.spender, permit2, featureId);
  }
  return quote.tx.to;
}
