import type { RequestHandler } from "express";
import type { Logger } from "pino";

/** One structured line per request once the response is sent: method, path, status and duration. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    // Checked per request (the level can change at run time); below `info` the line would be
    // dropped anyway, and its listener and timer would be all the work done.
    if (!logger.isLevelEnabled("info")) return next();
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, "request");
    });
    next();
  };
}
