import type { z } from "zod";
import { ApiError } from "../sdk/server/apiError";

type Issue = z.core.$ZodRawIssue;

/**
 * Parses untrusted input with a zod schema, or throws a 400 whose message names the first field at
 * fault ("slug must be …", "label is required", "request body has unknown field foo").
 */
export function parseRequest<Schema extends z.ZodType>(schema: Schema, input: unknown, where = "request body"): z.output<Schema> {
  const result = schema.safeParse(input, { error: describeIssue });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join(".") : where;
  throw new ApiError("invalid_request", issue ? `${field} ${issue.message}` : `${where} is invalid`);
}

/** Default wording of the issues our schemas do not word themselves; the field name is prefixed later. */
function describeIssue(issue: Issue): string | undefined {
  switch (issue.code) {
    case "invalid_type": {
      const atRoot = (issue.path ?? []).length === 0;
      // express.json leaves the body undefined when the request is not JSON at all.
      if (atRoot && issue.input === undefined) return "must be a JSON object sent with Content-Type: application/json";
      if (issue.input === undefined) return "is required";
      if (atRoot && issue.expected === "object") return "must be a JSON object";
      return `must be ${article(issue.expected)}, received ${jsonType(issue.input)}`;
    }
    case "too_big":
      if (issue.origin === "string") return `must be at most ${issue.maximum} characters`;
      return issue.inclusive === false ? `must be less than ${issue.maximum}` : `must be at most ${issue.maximum}`;
    case "too_small":
      if (issue.origin === "string") return issue.minimum === 1 ? "must not be empty" : `must be at least ${issue.minimum} characters`;
      return issue.inclusive === false ? `must be greater than ${issue.minimum}` : `must be at least ${issue.minimum}`;
    case "unrecognized_keys":
      return `has unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    default:
      return undefined;
  }
}

function article(expected: string): string {
  if (expected === "int") return "an integer";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isInteger(value)) return "a fraction";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
