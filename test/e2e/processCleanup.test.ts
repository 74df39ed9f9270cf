import { expect } from "chai";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scaledTimeout } from "../fixtures/testTimeouts";
import { trackChild } from "../../scripts/devnet/processGroups";

const ROOT = join(__dirname, "..", "..");

/** Alive: present in /proc and not a zombie (an orphan killed in a container whose init does not reap it). */
function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    const state = readFileSync(stat, "utf8").split(") ")[1]?.[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

type ChildRun = { code: number | null; signal: NodeJS.Signals | null; output: string; pids: number[] };

/** Runs test/fixtures/leakingSuite.ts in a child mocha; `interrupt`: SIGINT it once its process tree is up. */
function runLeakingSuite(mode: "fail" | "timeout" | "wait", interrupt: boolean): Promise<ChildRun> {
  const child = spawn(process.execPath, [require.resolve("mocha/bin/mocha.js"), "-r", "ts-node/register/transpile-only", "test/fixtures/leakingSuite.ts"], {
    cwd: ROOT,
    env: { ...process.env, LEAKING_SUITE: mode, TS_NODE_TRANSPILE_ONLY: "true" },
    stdio: ["ignore", "pipe", "pipe"],
    // Tracked like any service a test starts: if this test fails, the child run and its tree go too.
    detached: true,
  });
  trackChild(child, true);
  let output = "";
  let pids: number[] = [];
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    const match = /PIDS (\d+) (\d+)/.exec(output);
    if (match !== null && pids.length === 0) {
      pids = [Number(match[1]), Number(match[2])];
      if (interrupt) process.kill(-child.pid!, "SIGINT");
    }
  });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, output, pids })));
}

/**
 * A test that fails, times out or is interrupted does not leave the processes it started: the helpers
 * that spawn devnets, relayers and APIs (spawnService, spawnDevnet) run each in a process group of its
 * own, tracked, and stopped as a whole by a mocha root hook, on SIGINT/SIGTERM and at exit.
 */
describe("processes started by a test are stopped whatever happens to the test", function () {
  this.timeout(scaledTimeout(120_000));

  for (const [mode, interrupt, how] of [
    ["fail", false, "fails an assertion"],
    ["timeout", false, "times out"],
    ["wait", true, "is interrupted with SIGINT (Ctrl-C)"],
  ] as const) {
    it(`leaves no process of a started process tree (child and grandchild) when the test ${how}`, async () => {
      const run = await runLeakingSuite(mode, interrupt);
      expect(run.pids, run.output).to.have.length(2);
      if (!interrupt) expect(run.code, run.output).to.equal(1);
      // The group is killed before the run exits; an orphan may take a moment to be reaped.
      for (const until = Date.now() + 5_000; run.pids.some(alive) && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(run.pids.filter(alive), `still running after the child run ended:\n${run.output}`).to.deep.equal([]);
    });
  }
});

describe("TEST_TIMEOUT_SCALE: the end-to-end tests' timeouts for slow machines", () => {
  const scaled = (value: string | undefined) =>
    spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", 'process.stdout.write(String(require("./test/fixtures/testTimeouts").scaledTimeout(240000)))'], {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true", TEST_TIMEOUT_SCALE: value },
      encoding: "utf8",
    });

  it("multiplies the timeouts by TEST_TIMEOUT_SCALE (default 1), and refuses a value that is not a positive number", function () {
    this.timeout(scaledTimeout(60_000));
    expect(scaled(undefined).stdout).to.equal("240000");
    expect(scaled("2.5").stdout).to.equal("600000");
    const refused = scaled("0");
    expect(refused.status).to.not.equal(0);
    expect(refused.stderr).to.contain("TEST_TIMEOUT_SCALE must be a positive number");
  });
});
