import { postApiKey } from "./postApiKey";
import { postApplication } from "./postApplication";
import { postMe } from "./postMe";
import { postNonce } from "./postNonce";
import { postRevokeApiKey } from "./postRevokeApiKey";
import { postIntegratorWebhook } from "./postIntegratorWebhook";
import { perIpRateLimit, perRequestKeyRateLimit } from "../middleware/perIpRateLimit";
import type { Route } from "./route";

/** The public onboarding endpoints (spec, "Onboarding"); authorised by wallet signatures, not API keys. */
export const onboardingRoutes: readonly Route[] = [postNonce, postApplication, postApiKey, postMe, postRevokeApiKey, postIntegratorWebhook].map(limited);

/**
 * Every onboarding endpoint is limited per client IP (one bucket per endpoint), and nonce requests
 * per wallet too: each stores a challenge, so a flood must not fill the database. In memory, or
 * shared by every instance on PostgreSQL.
 */
function limited(route: Route): Route {
  return {
    ...route,
    handlers: (deps) => {
      const rejected = (bucket: string) => deps.metrics?.rateLimited.inc({ bucket });
      const perIp = perIpRateLimit(`onboarding_ip${route.path.replaceAll("/", "_")}`, deps.config.onboardingRateLimitPerMinute, deps.rateLimiters, rejected);
      const perWallet =
        route === postNonce
          ? [perRequestKeyRateLimit("onboarding_wallet", deps.config.onboardingWalletRateLimitPerMinute, walletOf, "wallet", deps.rateLimiters, rejected)]
          : [];
      return [perIp, ...perWallet, ...route.handlers(deps)];
    },
  };
}

/** The wallet a request names, lowercase; absent or malformed ones are left to the endpoint's validation. */
function walletOf(req: { body?: unknown }): string | undefined {
  const wallet = (req.body as { wallet?: unknown } | undefined)?.wallet;
  return typeof wallet === "string" && /^0x[0-9a-fA-F]{40}$/.test(wallet) ? wallet.toLowerCase() : undefined;
}
