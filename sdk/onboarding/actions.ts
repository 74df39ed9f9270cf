/** The signed onboarding actions; each nonce is issued for exactly one of them. */
export const OnboardingAction = {
  CreateApplication: "create_integrator_application",
  CreateApiKey: "create_integrator_api_key",
  RevokeApiKey: "revoke_integrator_api_key",
  ViewProfile: "view_integrator_profile",
  SetWebhook: "set_integrator_webhook",
} as const;

export type OnboardingAction = (typeof OnboardingAction)[keyof typeof OnboardingAction];

/** Every action, in the spec's order; handy for enum schemas. */
export const onboardingActions = [
  OnboardingAction.CreateApplication,
  OnboardingAction.CreateApiKey,
  OnboardingAction.RevokeApiKey,
  OnboardingAction.ViewProfile,
  OnboardingAction.SetWebhook,
] as const satisfies readonly OnboardingAction[];

/** Create and revoke actions bind their nonce to a payload hash; viewing the profile changes nothing, so it needs none. */
export function actionRequiresPayloadHash(action: OnboardingAction): boolean {
  return action !== OnboardingAction.ViewProfile;
}
