import pg from "pg";

/** After the listening connection is lost, how long before it is opened again. */
const RECONNECT_MS = 1_000;
/**
 * The listening connection is asked `SELECT 1` this often: a connection a NAT or proxy dropped
 * silently (no error, no end) would otherwise look alive while notifications are lost.
 */
const HEARTBEAT_MS = 10_000;

export type PostgresListenerHandlers = Readonly<{
  /** A `NOTIFY` on one of the channels (delivered at the notifying transaction's commit). */
  notification(channel: string, payload: string): void;
  /** LISTEN holds (again): whatever was notified while it did not was missed, so act as if anything changed. */
  listening(): void;
  /** The connection is gone (a reconnect follows unless closed): notifications are being missed from now. */
  lost(): void;
}>;

/**
 * One PostgreSQL connection that LISTENs on some channels for as long as it is open, reconnecting
 * after a loss and checking itself with a heartbeat. The API's credential cache and the relayer's
 * relay-event signal both use it, so what "listening" means (and when it has stopped) is written once.
 */
export class PostgresListener {
  #client: pg.Client | undefined;
  #closed = false;
  #reconnect: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channels: readonly string[],
    private readonly applicationName: string,
    private readonly handlers: PostgresListenerHandlers,
  ) {}

  /** Opens the listening connection; resolves once it listens (or failed: then it retries in the background). */
  async start(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.url, application_name: this.applicationName, keepAlive: true });
    this.#client = client;
    const lost = () => {
      if (this.#client !== client) return;
      clearInterval(this.#heartbeat);
      this.#client = undefined;
      this.handlers.lost();
      void client.end().catch(() => undefined);
      if (!this.#closed) this.#reconnect = setTimeout(() => void this.start(), RECONNECT_MS).unref();
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", (message) => this.handlers.notification(message.channel, message.payload ?? ""));
    try {
      await client.connect();
      for (const channel of this.channels) await client.query(`LISTEN ${channel}`);
      if (this.#closed || this.#client !== client) return;
      this.handlers.listening();
      this.#heartbeat = setInterval(() => {
        const timeout = setTimeout(lost, HEARTBEAT_MS).unref();
        client.query("SELECT 1").then(
          () => clearTimeout(timeout),
          () => {
            clearTimeout(timeout);
            lost();
          },
        );
      }, HEARTBEAT_MS).unref();
    } catch {
      lost();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnect);
    clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }
}
