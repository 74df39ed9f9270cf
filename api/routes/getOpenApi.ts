import { buildOpenApiDocument } from "../openapi/openApiDocument";
import type { Route } from "./route";

/** GET /openapi.json: the API's OpenAPI 3.1 document, built from the request and response schemas. */
export const getOpenApiRoute: Route = {
  method: "get",
  path: "/openapi.json",
  handlers: () => {
    const body = JSON.stringify(buildOpenApiDocument());
    return [
      (_req, res) => {
        res.type("application/json").send(body);
      },
    ];
  },
};
