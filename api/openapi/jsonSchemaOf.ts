import { z } from "zod";

/** A JSON Schema object as the OpenAPI 3.1 document carries it. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * The JSON Schema (2020-12, which OpenAPI 3.1 uses) of a zod schema's wire form: the input a request
 * schema accepts, or the JSON a response schema parses. Refinements that JSON Schema cannot say
 * (checksums, cross-field rules) stay in zod; the document gives their wording as descriptions.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  return rest;
}

/** An object schema's properties as OpenAPI parameters (query or path), with their required flags. */
export function parametersOf(schema: z.ZodType, location: "query" | "path", descriptions: Readonly<Record<string, string>> = {}, examples: Readonly<Record<string, string>> = {}) {
  const object = jsonSchemaOf(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || (object.required ?? []).includes(name),
    ...(descriptions[name] === undefined ? {} : { description: descriptions[name] }),
    schema: property,
    ...(examples[name] === undefined ? {} : { example: examples[name] }),
  }));
}
