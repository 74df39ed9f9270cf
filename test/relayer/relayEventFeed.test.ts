import { expect } from "chai";
import Database from "better-sqlite3";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { join } from "node:path";
import pino from "pino";
import type { RelayFeedEventJson } from "../../sdk";
import { RelayEventFeed } from "../../api/gasless/relayEventFeed";
import { RelayerClient } from "../../api/gasless/relayerClient";
import { gaslessConfig, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";

/** The real client to the real relayer, with the feed's reads of the head held until the test lets them go. */
class HeldHeadReads extends RelayerClient {
  heads = 0;
  hold: Promise<void> | undefined;
  #asked: (() => void) | undefined;

  /** Resolves when the feed next asks for the head. */
  nextHeadRead(): Promise<void> {
    return new Promise((resolve) => (this.#asked = resolve));
  }

  override async relayEventFeed(after: number | "head", waitMs: number, signal?: AbortSignal) {
    if (after === "head") {
      this.heads++;
      this.#asked?.();
      await this.hold;
    }
    return super.relayEventFeed(after, waitMs, signal);
  }
}

describe("the API instance's relay event feed (real relayer over HTTP, SQLite)", function () {
  this.timeout(60_000);
  let stack: GaslessStack | undefined;

  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("a stream that subscribes after the last one left, while the stopped feed winds down, is positioned by the next run only, and gets every event after it", async () => {
    stack = await startGaslessStack(await loadFixture(gaslessReadyFixture));
    const client = new HeldHeadReads(gaslessConfig(stack.relayer!.url));
    const feed = new RelayEventFeed(client, 50, pino({ level: "silent" }));
    const first = feed.subscribe({ events: () => undefined, failed: () => undefined });
    await first.positioned;

    let release = () => undefined as void;
    client.hold = new Promise<void>((resolve) => (release = resolve));
    const restarted = client.nextHeadRead();
    const received: RelayFeedEventJson[] = [];
    // The interleaving: the last stream leaves (the run is told to stop) and, before that run's end
    // has run, another subscribes.
    first.unsubscribe();
    const second = feed.subscribe({ events: (events) => received.push(...events), failed: () => undefined });
    let told = false;
    void second.positioned.then(() => (told = true));
    // The stopped run has ended and the next one asks for the head (held here).
    await restarted;
    await new Promise((resolve) => setImmediate(resolve));
    expect(told, "positioned before the next run knew the head: events between the runs would be lost").to.equal(false);
    expect(client.heads).to.equal(2);

    release();
    await second.positioned;
    // An event written after `positioned` reaches the subscriber.
    const db = new Database(join(stack.directory, "relayer.sqlite"));
    let seq: number;
    try {
      db.pragma("busy_timeout = 5000");
      seq = (
        db
          .prepare("INSERT INTO relay_events (event_id, relay_id, integrator_id, status, body, created_at) VALUES ('evt_feed_test', 'relay_feed_test', ?, 'accepted', '{}', ?) RETURNING seq")
          .get(stack.api.integratorId, Date.now()) as { seq: number }
      ).seq;
    } finally {
      db.close();
    }
    const deadline = Date.now() + 10_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    second.unsubscribe();
    expect(received.map((event) => event.seq)).to.deep.equal([seq]);
  });
});
