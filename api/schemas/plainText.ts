import { z } from "zod";
import { CONTROL_CHARACTER_MESSAGE, hasControlCharacter } from "../../sdk/wire/controlCharacters";

// JSON can carry lone surrogates ("\ud800"); UTF-8 cannot, so such text could not be hashed or stored faithfully.
const wellFormed = (value: string) => !/\p{Cs}/u.test(value);

/**
 * The one rule for free text a client sends that reaches a database (a display name, a label, a
 * handle, a URL, an idempotency key): well-formed Unicode without control characters, so SQLite and
 * PostgreSQL accept exactly the same values (PostgreSQL refuses NUL with an error, not a 400).
 */
export function storableText<Schema extends z.ZodType<string>>(schema: Schema) {
  return schema.refine(wellFormed, "must be well-formed Unicode text").refine((value) => !hasControlCharacter(value), CONTROL_CHARACTER_MESSAGE);
}

/** Required text of 1 to `maxLength` characters, storable as above. */
export function plainText(maxLength: number) {
  return storableText(z.string().min(1).max(maxLength));
}
