import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/**
 * What a file held before a start overwrote it, to put back if the start fails: a failed `npm start`
 * must leave the deployment manifest of a devnet that is still running as it was.
 */
export function preserveFile(path: string): { restore(): void } {
  const before = existsSync(path) ? readFileSync(path) : undefined;
  return {
    restore: () => {
      if (before === undefined) rmSync(path, { force: true });
      else writeFileSync(path, before);
    },
  };
}
