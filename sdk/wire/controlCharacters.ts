/**
 * C0 control characters (U+0000-U+001F: NUL, tab, line breaks, escape, …) and DEL (U+007F). Names,
 * labels, handles, URLs and idempotency keys never need them, and NUL cannot be stored at all by
 * PostgreSQL's text types (SQLite would keep it): refusing them at the edge makes both engines, and
 * the API and the relayer, answer the same 400.
 */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** Completes "<field> …" in a 400. */
export const CONTROL_CHARACTER_MESSAGE = "must not contain control characters (U+0000-U+001F or U+007F, such as NUL, tab or a line break)";

export function hasControlCharacter(value: string): boolean {
  return CONTROL_CHARACTER.test(value);
}

/**
 * Text the servers write that others chose (a node's refusal, a revert reason: anyone's bytes), made
 * storable: NUL, which PostgreSQL refuses, becomes U+FFFD on both engines alike, so recording a failure cannot fail.
 */
export function storableMessage(text: string): string {
  return text.replaceAll("\u0000", "\ufffd");
}
