import type { RequestHandler } from "express";
import type { ApiDependencies } from "../apiDependencies";

/**
 * One endpoint: its method, its express path, and the handlers that serve it (guards such as
 * `apiKeyAuth` first, then the endpoint's own handler). createApp mounts a list of these.
 */
export type Route = Readonly<{
  method: "get" | "post";
  path: string;
  handlers(deps: ApiDependencies): readonly RequestHandler[];
}>;
