import { isAddress, isAddressEqual } from "viem";
import { QuoteFeeError, QuoteMismatchError } from "../errors/quoteCheck";

type Value = string | bigint | number | boolean | undefined | null;

function text(value: Value): string {
  if (value === undefined) return "absent";
  if (value === null) return "null";
  return String(value);
}

/** An amount from the quote JSON (a decimal string), or undefined when it is not one. */
export function amountOf(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return typeof value === "string" && /^[0-9]+$/.test(value) ? BigInt(value) : undefined;
}

function sameAddress(a: unknown, b: unknown): boolean {
  return typeof a === "string" && typeof b === "string" && isAddress(a, { strict: false }) && isAddress(b, { strict: false }) && isAddressEqual(a, b);
}

/**
 * The comparisons of one quote's check, each throwing a QuoteMismatchError (or QuoteFeeError) that
 * names the field refused, the value expected and where that value came from.
 */
export class QuoteFieldCheck {
  constructor(readonly quoteId: string) {}

  refuse(field: string, actual: Value, expected: Value, source: string, problem?: string): never {
    throw new QuoteMismatchError(this.quoteId, field, text(expected), text(actual), source, problem);
  }

  refuseFee(field: string, actual: Value, expected: Value, source: string, problem?: string): never {
    throw new QuoteFeeError(this.quoteId, field, text(expected), text(actual), source, problem);
  }

  address(field: string, actual: unknown, expected: string, source: string): void {
    if (!sameAddress(actual, expected)) this.refuse(field, actual as Value, expected, source);
  }

  amount(field: string, actual: unknown, expected: bigint, source: string): void {
    if (amountOf(actual) !== expected) this.refuse(field, actual as Value, expected, source);
  }

  /** bytes32 and other hex, compared without regard to letter case. */
  hex(field: string, actual: unknown, expected: string, source: string): void {
    if (typeof actual !== "string" || actual.toLowerCase() !== expected.toLowerCase()) this.refuse(field, actual as Value, expected, source);
  }

  same(field: string, actual: Value, expected: Value, source: string): void {
    if (actual !== expected) this.refuse(field, actual, expected, source);
  }
}
