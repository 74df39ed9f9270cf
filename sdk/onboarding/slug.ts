/** An integrator slug: 3-64 characters, lowercase letters, digits and hyphens (spec, "Limits"). */
export const SLUG_PATTERN = /^[a-z0-9-]{3,64}$/;

export function isValidSlug(value: string): boolean {
  return SLUG_PATTERN.test(value);
}
