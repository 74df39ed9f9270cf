import { sleep } from "./relayerStats";

/** Records the head as the bench sees it and the wall-clock time each block was first seen. */
export class BlockWatcher {
  head = 0n;
  readonly firstSeen = new Map<bigint, number>();
  #running = false;
  #loop: Promise<void> | undefined;

  constructor(private readonly rpc: (method: string, params?: unknown[]) => Promise<unknown>) {}

  async start(): Promise<void> {
    this.head = BigInt((await this.rpc("eth_blockNumber")) as string);
    this.firstSeen.set(this.head, Date.now());
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        try {
          const head = BigInt((await this.rpc("eth_blockNumber")) as string);
          const now = Date.now();
          for (let block = this.head + 1n; block <= head; block++) this.firstSeen.set(block, now);
          if (head > this.head) this.head = head;
        } catch {
          // The chain is busy or briefly unreachable; the next poll catches up.
        }
        await sleep(50);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }
}

