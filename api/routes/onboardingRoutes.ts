import { postApiKey } from "./postApiKey";
import { postApplication } from "./postApplication";
import { postMe } from "./postMe";
import { postNonce } from "./postNonce";
import { postRevokeApiKey } from "./postRevokeApiKey";
import type { Route } from "./route";

/** The public onboarding endpoints (spec, "Onboarding"); authorised by wallet signatures, not API keys. */
export const onboardingRoutes: readonly Route[] = [postNonce, postApplication, postApiKey, postMe, postRevokeApiKey];
