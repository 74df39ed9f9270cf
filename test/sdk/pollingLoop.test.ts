import { expect } from "chai";
import { PollingLoop } from "../../sdk/scheduling/pollingLoop";

/** A gate a step waits on, opened by the test: steps end when the test says, not after a sleep. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Until `holds`, checking at each turn of the event loop (a 2 s bound fails the test). */
async function until(holds: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error("condition not reached within 2 s");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The timer loop the relayer's watcher, nonce reconciliation, router follower and read endpoints share. */
describe("PollingLoop", () => {
  it("never runs two steps at once: the next wait starts when a slow step ends", async () => {
    let running = 0;
    let most = 0;
    let steps = 0;
    const gates = [gate(), gate(), gate()];
    const loop = new PollingLoop(async () => {
      running++;
      most = Math.max(most, running);
      await gates[steps]!.opened;
      steps++;
      running--;
    }, 1);
    loop.start();
    loop.start(); // a second start schedules nothing more
    await until(() => running === 1);
    // The first step is held far longer than the 1 ms interval: no second step starts meanwhile.
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
    expect([running, steps]).to.deep.equal([1, 0]);
    gates[0]!.open();
    await until(() => steps === 1 && running === 1);
    gates[1]!.open();
    await until(() => steps === 2 && running === 1);
    const stopping = loop.stop();
    // stop() waits for the step in flight.
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(stopped).to.equal(false);
    gates[2]!.open();
    await stopping;
    expect([steps, most]).to.deep.equal([3, 1]);
  });

  it("hands a failed step to onError and goes on; after stop() no step runs", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const loop = new PollingLoop(
      async () => {
        calls++;
        if (calls === 1) throw new Error("node down");
      },
      1,
      (error) => errors.push(error),
    );
    loop.start();
    await until(() => calls >= 3);
    await loop.stop();
    const after = calls;
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(calls).to.equal(after);
    expect(errors.map((error) => (error as Error).message)).to.deep.equal(["node down"]);
  });

  it("goes on after a step that throws before returning a promise, and after an onError that throws (a process warning, never an unhandled rejection)", async () => {
    const unhandled: unknown[] = [];
    const warnings: string[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    const onWarning = (warning: Error) => void warnings.push(warning.message);
    process.on("unhandledRejection", onUnhandled);
    process.on("warning", onWarning);
    try {
      let calls = 0;
      const seen: string[] = [];
      const loop = new PollingLoop(
        () => {
          calls++;
          if (calls === 1) throw new Error("thrown synchronously");
          if (calls === 2) return Promise.reject(new Error("rejected"));
          return Promise.resolve();
        },
        1,
        (error) => {
          seen.push((error as Error).message);
          if (seen.length === 2) throw new Error("the logger failed");
        },
      );
      loop.start();
      await until(() => calls >= 4);
      await loop.stop();
      await until(() => warnings.length > 0);
      expect(seen).to.deep.equal(["thrown synchronously", "rejected"]);
      expect(warnings).to.deep.equal(["PollingLoop: onError threw while handling a failed step: the logger failed"]);
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      process.off("warning", onWarning);
    }
  });

  it("a loop stopped before it started never runs", async () => {
    let calls = 0;
    const loop = new PollingLoop(async () => void calls++, 1);
    await loop.stop();
    loop.start();
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(calls).to.equal(0);
  });
});
