import express, { type RequestHandler } from "express";

/**
 * JSON bodies only, objects or arrays at the top level, at most `limit` bytes. Failures reach the
 * error handler as body-parser errors (400 for bad JSON, 413 when too large).
 */
export function jsonBody(limit: number): RequestHandler {
  return express.json({ limit, strict: true, type: "application/json" });
}
