/**
 * Base of every error the SDK throws. `shortMessage` says what went wrong in one line;
 * `details` says what the caller can do about it.
 */
export class SdkError extends Error {
  override name = "SdkError";
  readonly shortMessage: string;
  readonly details: string | undefined;

  constructor(shortMessage: string, options: { details?: string; cause?: unknown } = {}) {
    super(options.details ? `${shortMessage}\n\n${options.details}` : shortMessage, {
      cause: options.cause,
    });
    this.shortMessage = shortMessage;
    this.details = options.details;
  }
}
