import { z } from "zod";

/**
 * One environment variable, declared once: the zod parser that reads it (its default included) and what
 * it means. A service's settings are a record of these keyed by variable name; the parser, the typed
 * values and the generated configuration reference (`npm run docs:reference`) all come from that record.
 */
export type SettingDeclaration<S extends z.ZodType = z.ZodType> = Readonly<{ schema: S; doc: string }>;

export type SettingDeclarations = Readonly<Record<string, SettingDeclaration>>;

/** The parsed value of every declared variable, typed by its parser. */
export type SettingValues<D extends SettingDeclarations> = { readonly [K in keyof D]: z.output<D[K]["schema"]> };

export function setting<S extends z.ZodType>(schema: S, doc: string): SettingDeclaration<S> {
  return { schema, doc };
}

/** Declarations of settings several services share (the HTTP limits, the read endpoints): their zod fields and their docs, kept beside the code that applies them. */
export function settingsFrom<F extends Readonly<Record<string, z.ZodType>>>(fields: F, docs: { readonly [K in keyof F]: string }): { readonly [K in keyof F]: SettingDeclaration<F[K]> } {
  return Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, setting(schema, docs[name as keyof F])])) as { [K in keyof F]: SettingDeclaration<F[K]> };
}

/** The zod object over the environment that the declarations make (for readers that want the schema itself). */
export function environmentSchemaOf<D extends SettingDeclarations>(declarations: D): z.ZodObject<{ [K in keyof D]: D[K]["schema"] }> {
  return z.object(Object.fromEntries(Object.entries(declarations).map(([name, declaration]) => [name, declaration.schema]))) as z.ZodObject<{ [K in keyof D]: D[K]["schema"] }>;
}

/** Every invalid setting of a start, each with the variable it is about: the operator fixes them all in one go. */
export class InvalidSettingsError extends Error {
  override readonly name = "InvalidSettingsError";
  constructor(readonly problems: readonly Readonly<{ setting: string; message: string }>[]) {
    super(problems.map((problem) => `invalid ${problem.setting}: ${problem.message}`).join("; "));
  }
}

/** Parses the environment against the declarations, reporting every invalid variable at once. */
export function readSettings<D extends SettingDeclarations>(declarations: D, env: NodeJS.ProcessEnv): SettingValues<D> {
  const parsed = environmentSchemaOf(declarations).safeParse(env);
  if (!parsed.success) {
    throw new InvalidSettingsError(parsed.error.issues.map((issue) => ({ setting: issue.path.map(String).join(".") || "environment", message: issue.message })));
  }
  return parsed.data as SettingValues<D>;
}
