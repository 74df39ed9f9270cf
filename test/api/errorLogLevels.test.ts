import { expect } from "chai";
import express from "express";
import pino from "pino";
import { Writable } from "node:stream";
import { ApiError } from "../../sdk/server/apiError";
import { errorHandler } from "../../api/middleware/errorHandler";
import { serveApp, type RunningServer } from "../../api/serveApp";

/** An app whose routes fail the two ways a handler can, logging to `lines`. */
async function appLoggingTo(lines: Record<string, unknown>[]): Promise<RunningServer> {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = express();
  app.get("/paused", () => {
    throw new ApiError("feature_paused", "taker-submitted swaps (registry feature 2) are paused; retry later");
  });
  app.get("/bug", () => {
    throw new Error("undefined is not a function");
  });
  app.use(errorHandler(pino({ level: "trace" }, sink)));
  return serveApp(app, "127.0.0.1", 0);
}

describe("error log levels", () => {
  it("logs an expected 5xx (feature_paused) as a warning without a stack, and an unexpected failure as an error with its stack", async () => {
    const lines: Record<string, unknown>[] = [];
    const app = await appLoggingTo(lines);
    try {
      const paused = await fetch(`${app.url}/paused`);
      expect(paused.status).to.equal(503);
      expect(((await paused.json()) as { code: string }).code).to.equal("feature_paused");
      const bug = await fetch(`${app.url}/bug`);
      expect(bug.status).to.equal(500);
    } finally {
      await app.close();
    }
    const [refused, failed] = lines;
    expect(refused).to.deep.include({ level: 40, code: "feature_paused", msg: "request refused" });
    expect(JSON.stringify(refused)).to.not.include("stack");
    expect(failed).to.deep.include({ level: 50, msg: "request failed" });
    expect((failed!.err as { stack: string }).stack).to.include("undefined is not a function");
  });
});
