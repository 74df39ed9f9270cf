import { Ajv2020, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { buildOpenApiDocument } from "../../api/openapi/openApiDocument";

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

/**
 * Checks API responses against the OpenAPI document with Ajv (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1): the status must be documented (or fall under `default`), and the body must match its
 * schema. Paths the document does not describe (test-only probe routes) are not checked.
 */
export class DocumentValidator {
  readonly document = buildOpenApiDocument() as unknown as Document;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #templates: { pattern: RegExp; path: string }[];
  /** How many responses were checked, per "METHOD path status". */
  readonly checked = new Map<string, number>();

  constructor() {
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ $id: "openapi", components: this.document.components }, "openapi");
    this.#templates = Object.keys(this.document.paths).map((path) => ({ path, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`) }));
  }

  /** The documented path template of a request path, or undefined. */
  templateOf(path: string): string | undefined {
    const bare = path.split("?")[0]!;
    return this.#templates.find((template) => template.pattern.test(bare))?.path;
  }

  /** Throws when a response of a documented path does not conform. */
  check(method: string, path: string, status: number, body: unknown): void {
    const template = this.templateOf(path);
    const operation = template === undefined ? undefined : this.document.paths[template]?.[method.toLowerCase()];
    if (template === undefined || operation === undefined) return;
    const key = `${method.toUpperCase()} ${template} ${status}`;
    const responseKey = operation.responses[String(status)] !== undefined ? String(status) : "default";
    const response = operation.responses[responseKey];
    if (response === undefined) throw new Error(`${key}: status not in the OpenAPI document`);
    const content = response.content?.["application/json"];
    if (content === undefined) {
      if (body !== undefined) throw new Error(`${key}: the document describes no body, got ${JSON.stringify(body).slice(0, 200)}`);
    } else {
      let validate = this.#compiled.get(`${template} ${method} ${responseKey}`);
      if (validate === undefined) {
        const reference = (content.schema as { $ref?: string }).$ref;
        validate = this.#ajv.compile(reference === undefined ? (content.schema as object) : { $ref: `openapi${reference}` });
        this.#compiled.set(`${template} ${method} ${responseKey}`, validate);
      }
      if (!validate(body)) throw new Error(`${key}: body does not match the OpenAPI document: ${this.#ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    }
    this.checked.set(key, (this.checked.get(key) ?? 0) + 1);
  }
}

/** One validator for the whole test run: the API test fixtures check every response they receive. */
export const documentValidator = new DocumentValidator();
