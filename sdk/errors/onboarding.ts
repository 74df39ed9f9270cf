import { SdkError } from "./base";

/** A payload field that the payload-hash encoding cannot represent. */
export class PayloadFieldError extends SdkError {
  override name = "PayloadFieldError";
  readonly field: string;
  constructor(field: string, expected: string, received: unknown) {
    super(`payload field ${field} must be ${expected}, received ${describe(received)}`, {
      details: "Pass the same values you send in the request body; see the payload hash section of docs/integrators/onboarding.md.",
    });
    this.field = field;
  }
}

/** A message that is not an onboarding challenge issued by POST /integrators/nonce. */
export class OnboardingMessageError extends SdkError {
  override name = "OnboardingMessageError";
  constructor(reason: string) {
    super(`not an onboarding challenge message: ${reason}`, {
      details: "Sign only the `message` returned by POST /integrators/nonce, exactly as returned.",
    });
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === "bigint") return `${value}n`;
  return String(value);
}
