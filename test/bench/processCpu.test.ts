import { spawn } from "node:child_process";
import { once } from "node:events";
import { expect } from "chai";
import { LOAD_GENERATOR, measureCpu } from "../../scripts/bench/processCpu";

/**
 * A real node process that, once told to on stdin, spins its event loop until it has burnt `ms` of CPU
 * (its own user + system time, not the wall clock, so a loaded machine that deschedules it stretches
 * the spin rather than shrinking the CPU it burns), then prints "done".
 */
function spinner(ms: number) {
  const child = spawn(process.execPath, ["-e", `process.stdin.once("data", () => { const start = process.cpuUsage(); const burnt = () => { const used = process.cpuUsage(start); return (used.user + used.system) / 1000; }; while (burnt() < ${ms}); console.log("done"); process.stdin.pause(); });`], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  return {
    child,
    spin: async () => {
      const done = once(child.stdout!, "data");
      child.stdin!.write("go\n");
      await done;
    },
  };
}

describe("bench CPU accounting from /proc (CPU per request, not wall-clock shares)", function () {
  this.timeout(20_000);

  it("counts the CPU a child process's event loop burnt during the window to its group and its main thread, and none to an idle one", async () => {
    const busy = spinner(400);
    const idle = spinner(0);
    try {
      await Promise.all([once(busy.child, "spawn"), once(idle.child, "spawn")]);
      // Let both finish starting up, which is CPU outside the window.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const window = await measureCpu({ busy: () => [busy.child.pid!], idle: () => [idle.child.pid!] }, busy.spin, { "busy main thread": busy.child.pid! });
      // 0.4 s of CPU burnt; /proc counts in 10 ms ticks, and a loaded machine can stretch the window but not the CPU used.
      expect(window.cpuSeconds.busy).to.be.within(0.3, 0.6);
      expect(window.cpuSeconds["busy main thread"]).to.be.within(0.3, window.cpuSeconds.busy! + 0.01);
      expect(window.cpuSeconds.idle).to.be.at.most(0.03);
      // This process is measured too, apart from its children: whatever else runs in it (earlier tests'
      // timers in a full run) is its own, so only its bound is asserted: at most both cores for the window.
      expect(window.cpuSeconds[LOAD_GENERATOR]).to.be.within(0, window.seconds * 2);
      expect(window.cpuPercent.busy).to.be.closeTo((window.cpuSeconds.busy! / window.seconds) * 100, 1e-9);
      expect(window.machinePercent).to.be.above(0);
    } finally {
      busy.child.kill();
      idle.child.kill();
    }
  });
});
