import { createTransport, hexToBigInt, hexToNumber, http, type EIP1193RequestFn, type Hex, type Transport } from "viem";
import { isNoAnswer } from "./noAnswer";
import { PollingLoop } from "../scheduling/pollingLoop";
import { endpointLabels } from "./endpointLabel";
import { rankEndpoints, type EndpointHealth, type EndpointRanking } from "./endpointRanking";
import { errorSummary } from "../errors/errorSummary";
import { NoEndpointServedError } from "../errors/rpc";

/** Told of each endpoint's requests, of each new ranking, and of each failover (the servers' metrics). */
export type ReadEndpointObserver = {
  request(endpoint: string, seconds: number, failed: boolean): void;
  ranked(endpoints: readonly ReadEndpointState[]): void;
  failover(from: string): void;
};

/** One endpoint as the last ranking saw it. */
export type ReadEndpointState = Readonly<{
  endpoint: string;
  head: bigint | undefined;
  lag: bigint | undefined;
  usable: boolean;
  selected: boolean;
  latencyMs: number;
  errorRate: number;
}>;

type EndpointLogger = { warn(fields: object, message: string): void; info(fields: object, message: string): void };

export type ReadEndpointsOptions = Readonly<{
  urls: readonly string[];
  /** The chain every endpoint must serve; one that serves another is never used. */
  chainId: number;
  /** A node whose head is more than this many blocks behind the highest is set aside. */
  maxLagBlocks: number;
  /** How often every endpoint's head is read. */
  probeMs: number;
  /** A request with no answer after this long counts as failed (and the next endpoint is tried). */
  timeoutMs?: number;
  /** JSON-RPC batching window of each endpoint's HTTP transport, in ms (0: batch what one tick asks; unset: no batching). */
  batchWaitMs?: number;
  observer?: ReadEndpointObserver;
  logger?: EndpointLogger;
}>;

/** Weight of the newest request in the latency and error averages. */
const SMOOTHING = 0.2;

/**
 * `chain`: whether the endpoint's chain id is known ("checked"; `health.wrongChain` says which), being
 * asked (the question, shared by concurrent askers) or still to ask.
 */
type Endpoint = { url: string; label: string; request: EIP1193RequestFn; health: EndpointHealth; chain: "checked" | Promise<void> | undefined };

/**
 * Several JSON-RPC endpoints for reads (RPC_URLS), behind one viem transport. Every `probeMs` each
 * endpoint's head is read (its chain id once); the endpoints are ranked by latency, unanswered requests
 * and head height (endpointRanking.ts): one more than `maxLagBlocks` behind the others, or silent, is set
 * aside until it catches up. Each request goes to the selected endpoint; a request that gets no answer
 * (connection refused or cut, a timeout, HTTP 429 or 5xx, a node's internal error) is tried on the next
 * usable one, except `eth_sendRawTransaction`, which is never sent twice from here (its caller follows a
 * send that got no answer against the chain). An answer, a revert included, is returned as is.
 *
 * Unlike viem's `fallback` transport with `rank`, which orders by latency and stability only, this one
 * also compares heads: a fast node that stopped following the chain answers quickly and wrongly.
 */
export class ReadEndpoints {
  readonly #endpoints: Endpoint[];
  readonly #loop: PollingLoop;
  #ranking: EndpointRanking;

  constructor(private readonly options: ReadEndpointsOptions) {
    if (options.urls.length === 0) throw new Error("ReadEndpoints needs at least one URL");
    const labels = endpointLabels(options.urls);
    const timeout = options.timeoutMs ?? 10_000;
    const batch = options.batchWaitMs === undefined ? false : options.batchWaitMs === 0 ? true : { wait: options.batchWaitMs };
    this.#endpoints = options.urls.map((url, index) => ({
      url,
      label: labels[index]!,
      request: http(url, { retryCount: 0, timeout, batch })({ retryCount: 0 }).request,
      health: { head: undefined, answering: true, latencyMs: 0, errorRate: 0, wrongChain: false },
      chain: undefined,
    }));
    this.#ranking = rankEndpoints(this.#endpoints.map((endpoint) => endpoint.health), options.maxLagBlocks, undefined);
    this.#loop = new PollingLoop(() => this.probe(), options.probeMs);
  }

  /** The endpoints' labels (their hosts), in configured order. */
  get labels(): string[] {
    return this.#endpoints.map((endpoint) => endpoint.label);
  }

  /** The label of the endpoint reads go to now; undefined when none serves the chain. */
  get selected(): string | undefined {
    return this.#ranking.selected === undefined ? undefined : this.#endpoints[this.#ranking.selected]!.label;
  }

  /** Every endpoint as the last ranking saw it. */
  get states(): ReadEndpointState[] {
    return this.#endpoints.map((endpoint, index) => ({
      endpoint: endpoint.label,
      head: endpoint.health.head,
      lag: this.#ranking.lag[index],
      usable: this.#ranking.usable[index]!,
      selected: this.#ranking.selected === index,
      latencyMs: endpoint.health.latencyMs,
      errorRate: endpoint.health.errorRate,
    }));
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Reads every endpoint's head (and, the first time it answers, its chain id), then ranks them again. */
  async probe(): Promise<void> {
    await Promise.all(
      this.#endpoints.map(async (endpoint) => {
        try {
          await this.#checkChain(endpoint);
          const head = hexToBigInt((await this.#timed(endpoint, { method: "eth_blockNumber" })) as Hex);
          endpoint.health = { ...endpoint.health, head, answering: true };
        } catch {
          endpoint.health = { ...endpoint.health, answering: false };
        }
      }),
    );
    this.#rank();
  }

  /**
   * Asks the endpoint its chain id the first time it answers; one serving another chain is marked and
   * never used. Reads call it too, so a read before the first probe completes (the API does not wait
   * for it) or in the all-down fallback never reaches a node of another chain.
   */
  #checkChain(endpoint: Endpoint): Promise<void> {
    if (endpoint.chain === "checked") return Promise.resolve();
    if (endpoint.chain !== undefined) return endpoint.chain;
    const asking = this.#timed(endpoint, { method: "eth_chainId" })
      .then((answer) => {
        const chainId = hexToNumber(answer as Hex);
        endpoint.chain = "checked";
        if (chainId === this.options.chainId) return;
        endpoint.health = { ...endpoint.health, wrongChain: true };
        this.options.logger?.warn({ endpoint: endpoint.label, chainId, expected: this.options.chainId }, "read endpoint serves another chain; it is never used");
        this.#rank();
      })
      .catch((error: unknown) => {
        endpoint.chain = undefined;
        throw error;
      });
    endpoint.chain = asking;
    return asking;
  }

  /** A viem transport over the endpoints: each request to the selected one, failing over as the class says. */
  transport(): Transport {
    return (() =>
      createTransport({
        key: "readEndpoints",
        name: "Ranked read endpoints",
        type: "readEndpoints",
        retryCount: 0,
        request: (async (args: { method: string; params?: unknown }) => {
          const order = args.method === "eth_sendRawTransaction" ? this.#ranking.order.slice(0, 1) : this.#ranking.order;
          // What each endpoint tried did, and why the ranking left the others out (a send goes to the
          // selected endpoint alone, by design), for the error when none serves the request.
          const skipped: string[] = [];
          // The last failure seen, the error's cause: a read that found no answer still reads as one (isNoAnswer).
          let failure: unknown;
          const aside = () => (args.method === "eth_sendRawTransaction" ? [] : this.#setAside(order));
          for (const [position, index] of order.entries()) {
            const endpoint = this.#endpoints[index]!;
            const last = position === order.length - 1;
            try {
              await this.#checkChain(endpoint);
            } catch (error) {
              // A chain check that fails in any way (no answer, a method refused, a malformed id) only
              // skips this endpoint: it is asked again at its next use or probe.
              skipped.push(`${endpoint.label}: chain id not read (${errorSummary(error)})`);
              failure = error;
              if (last) throw this.#noneServed(skipped, aside(), failure);
              this.options.observer?.failover(endpoint.label);
              continue;
            }
            if (endpoint.health.wrongChain) {
              skipped.push(`${endpoint.label}: serves another chain`);
              continue;
            }
            try {
              return await this.#timed(endpoint, args);
            } catch (error) {
              if (!isNoAnswer(error)) throw error;
              skipped.push(`${endpoint.label}: no answer (${errorSummary(error)})`);
              failure = error;
              if (last) throw this.#noneServed(skipped, aside(), failure);
              this.options.observer?.failover(endpoint.label);
            }
          }
          throw this.#noneServed(skipped, aside(), failure, false);
        }) as EIP1193RequestFn,
      })) as Transport;
  }

  /**
   * The error when no endpoint served a request: each endpoint's reason, in the order tried. A lone
   * endpoint's own failure is thrown as it is; otherwise the last failure seen is the cause, so a caller
   * that classifies failures through causes (isNoAnswer) still reads it as no answer.
   */
  #noneServed(skipped: readonly string[], aside: readonly string[], lastError?: unknown, lastFailed = true): unknown {
    if (lastFailed && lastError !== undefined && skipped.length === 1 && aside.length === 0) return lastError;
    const reasons = [...skipped, ...aside];
    return new NoEndpointServedError(this.options.chainId, reasons.length === 0 ? this.labels : reasons, lastError);
  }

  /** Why each endpoint outside `tried` was left out by the last ranking. */
  #setAside(tried: readonly number[]): string[] {
    return this.#endpoints.flatMap((endpoint, index) => {
      if (tried.includes(index)) return [];
      const lag = this.#ranking.lag[index];
      const why = endpoint.health.wrongChain ? "serves another chain" : !endpoint.health.answering ? "does not answer" : lag !== undefined ? `${lag} blocks behind` : "head not read yet";
      return [`${endpoint.label}: set aside (${why})`];
    });
  }

  /** One request to one endpoint, its latency and whether it got an answer folded into the endpoint's health. */
  async #timed(endpoint: Endpoint, args: { method: string; params?: unknown }): Promise<unknown> {
    const started = process.hrtime.bigint();
    let failed = false;
    try {
      return await (endpoint.request as (a: unknown) => Promise<unknown>)(args);
    } catch (error) {
      failed = isNoAnswer(error);
      throw error;
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const { health } = endpoint;
      const first = health.latencyMs === 0 && health.errorRate === 0;
      endpoint.health = {
        ...health,
        latencyMs: first ? seconds * 1000 : health.latencyMs * (1 - SMOOTHING) + seconds * 1000 * SMOOTHING,
        errorRate: health.errorRate * (1 - SMOOTHING) + (failed ? SMOOTHING : 0),
      };
      this.options.observer?.request(endpoint.label, seconds, failed);
      // A failure can change the selection now rather than at the next probe.
      if (failed) this.#rank();
    }
  }

  #rank(): void {
    const before = this.#ranking;
    this.#ranking = rankEndpoints(this.#endpoints.map((endpoint) => endpoint.health), this.options.maxLagBlocks, before.selected);
    const logger = this.options.logger;
    this.#endpoints.forEach((endpoint, index) => {
      const usable = this.#ranking.usable[index]!;
      if (usable === before.usable[index]) return;
      const lag = this.#ranking.lag[index];
      if (usable) logger?.info({ endpoint: endpoint.label, lag: lag?.toString() }, "read endpoint back in rotation");
      else if (!endpoint.health.wrongChain) {
        logger?.warn(
          { endpoint: endpoint.label, lag: lag?.toString(), answering: endpoint.health.answering, maxLagBlocks: this.options.maxLagBlocks },
          endpoint.health.answering ? "read endpoint set aside: its head lags the others" : "read endpoint set aside: it does not answer",
        );
      }
    });
    if (before.selected !== this.#ranking.selected && this.#ranking.selected !== undefined) {
      logger?.info({ endpoint: this.#endpoints[this.#ranking.selected]!.label, previous: before.selected === undefined ? undefined : this.#endpoints[before.selected]!.label }, "reads go to another endpoint");
    }
    this.options.observer?.ranked(this.states);
  }
}

