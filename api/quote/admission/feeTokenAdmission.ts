import type { Address } from "viem";
import { acceptedFeeTokens, type DeploymentManifest } from "../../../sdk";
import { ApiError } from "../../../sdk/server/apiError";
import type { GaslessConfig } from "../../config";
import type { SupportedToken } from "../../tokens/supportedTokens";

/** Resolved once per (configuration, chain): both live as long as the app. */
const resolved = new WeakMap<GaslessConfig, WeakMap<DeploymentManifest, ReadonlySet<Address>>>();

function feeTokensOf(config: GaslessConfig, manifest: DeploymentManifest): ReadonlySet<Address> {
  let byManifest = resolved.get(config);
  if (byManifest === undefined) resolved.set(config, (byManifest = new WeakMap()));
  let accepted = byManifest.get(manifest);
  if (accepted === undefined) byManifest.set(manifest, (accepted = acceptedFeeTokens(manifest, config.feeTokens)));
  return accepted;
}

/**
 * A gasless quote charges the relayer's fee in its sell token, so it is offered only for tokens the
 * operator accepts as a fee (`RELAYER_FEE_TOKENS`, by default the manifest's): a token anyone can
 * mint would have the relayer pay gas for nothing. Checked before any chain read. With sponsored gas
 * the fee is zero, and the list still bounds which tokens the operator pays gas for.
 */
export function admitFeeToken(config: GaslessConfig, manifest: DeploymentManifest, sellToken: SupportedToken): void {
  const accepted = feeTokensOf(config, manifest);
  if (accepted.has(sellToken.address)) return;
  const names = manifest.tokens.filter((token) => accepted.has(token.address.toLowerCase() as Address)).map((token) => token.symbol);
  const offered = names.length > 0 ? `; gasless quotes sell one of ${names.join(", ")}` : "";
  throw new ApiError(
    "fee_token_not_accepted",
    `sell_token ${sellToken.symbol} (${sellToken.address}) is not a token the relayer accepts for its fee (RELAYER_FEE_TOKENS)${offered}; quote it without permit2_owner to swap it yourself`,
  );
}
