import { createLimitedServer, DEFAULT_HTTP_SERVER_LIMITS } from "../sdk/server/httpServerLimits";
import type { AddressInfo } from "node:net";
import pino, { type Logger } from "pino";
import { createPublicClient, defineChain, http, type Address, type Hex, type PublicClient, type Transport } from "viem";
import { acceptedFeeTokens, manifestPath, readManifest, unknownFeeTokenSymbols } from "../sdk";
import { ChainHead } from "../sdk/chain/chainHead";
import { NetworkFeeModel } from "../sdk/chain/networkFeeModel";
import type { RelayerConfig } from "./config";
import { createInternalApp } from "./intake/internalServer";
import { NonceReconciler } from "./broadcast/nonceReconciler";
import type { RelayContext } from "./queue/relayContext";
import { RelayQueue } from "./queue/relayQueue";
import { ReceiptWatcher } from "./receipts/receiptWatcher";
import { fanOutSends } from "./broadcast/sendFanOut";
import { SignerPool } from "./broadcast/signerPool";
import { SignerRoster } from "./broadcast/signerRoster";
import { SignerStateSync } from "./broadcast/signerStateSync";
import type { RelayStore } from "./store/relayStore";
import { openRelayStore } from "./store/openRelayStore";
import { LeaseKeeper } from "./queue/leaseKeeper";
import { createRelayerMetrics } from "./relayerMetrics";
import { observedRelayStore } from "./store/observedRelayStore";
import { observedTransport } from "../sdk/observability/observedTransport";
import { observeRpc } from "../sdk/observability/serverMetrics";
import { serveMetrics } from "../sdk/observability/metricsServer";
import { WebhookDispatcher } from "./pushed/webhookDispatcher";
import type { KeyBackend } from "./signing/keyBackend";
import { openKeyBackend, openKeyBackends } from "./signing/openKeyBackends";
import { Treasury } from "./broadcast/treasury";
import { SigningHealth } from "./signing/signingHealth";
import { policedAccount } from "./signing/policedAccount";
import { RegistryRouters } from "./signing/registryRouters";
import { ReadEndpoints } from "../sdk/rpc/readEndpoints";
import { SignerSpend } from "./signing/signerSpend";
import { SigningPolicy } from "./signing/signingPolicy";
import { bumped } from "./broadcast/feeBump";
import { errorSummary } from "../sdk/errors/errorSummary";

/**
 * Relays belong to the chain run of the manifest (its deploy block hash). A devnet restart is a new
 * chain on which the old relays' transactions never existed: they are forgotten, so their nonces do
 * not leave holes. A redeploy on the same chain (the old block still exists) keeps them.
 */
async function adoptChainRun(store: RelayStore, client: PublicClient, deployBlockHash: Hex, logger: Logger): Promise<void> {
  const previous = await store.chainRun();
  if (previous === deployBlockHash.toLowerCase()) return;
  const stillOnChain = previous !== undefined && (await client.getBlock({ blockHash: previous }).then(() => true, () => false));
  const forgotten = await store.setChainRun(deployBlockHash, { forgetRelays: previous !== undefined && !stillOnChain });
  if (forgotten > 0) logger.warn({ previous, current: deployBlockHash, forgotten }, "the chain was reset since the last run; its relays were forgotten");
}

/**
 * Two relayers signing with one key on one database would spend each other's nonces: each would
 * replace or strand the other's swaps. A relayer registers its signer addresses (renewed with its
 * leases) and does not start while another live relayer holds one of them.
 */
async function claimSigners(store: RelayStore, config: RelayerConfig, signers: readonly Address[], now: Date): Promise<void> {
  const holders = await store.claimSigners({ relayerId: config.relayerId, signers, until: new Date(now.getTime() + config.leaseSeconds * 1000), now });
  if (holders.length === 0) return;
  const list = holders.map((holder) => `${holder.signer} (relayer ${holder.relayerId}, live until ${holder.until.toISOString()})`).join(", ");
  throw new Error(
    `another live relayer on this database signs with ${list}: each signer key belongs to one relayer; give this one other signers (RELAYER_SIGNERS), or stop the other (a relayer that died frees its signers after RELAYER_LEASE_SECONDS)`,
  );
}

export type RunningRelayer = {
  /** The internal endpoint the API hands relays to. */
  url: string;
  /** Where GET /metrics is served, when `RELAYER_METRICS_PORT` is set. */
  metricsUrl?: string;
  signers: readonly { address: Address; balance: bigint }[];
  context: RelayContext;
  close(): Promise<void>;
};

/**
 * Opens the relay database, reads each signer's nonce from the chain, recovers every relay that is
 * not final (receipts, nonces, rebroadcasts), and only then starts the queue, the watcher and the
 * internal endpoint. `close` stops taking work, lets in-flight broadcasts finish, then closes the
 * database; a crash instead is safe too, since a signed transaction is stored before it is sent.
 */
export async function startRelayer(
  config: RelayerConfig,
  logger: Logger = pino({ name: "relayer", level: config.logLevel }),
  /** A transport to use instead of `config.rpcUrl` (tests running the chain in-process). */
  transport?: Transport,
): Promise<RunningRelayer> {
  const manifest = readManifest(manifestPath(config.deploymentsDir, config.chainId));
  const unknownFeeTokens = unknownFeeTokenSymbols([manifest], config.feeTokens);
  if (unknownFeeTokens.length > 0) {
    throw new Error(`invalid RELAYER_FEE_TOKENS: ${unknownFeeTokens.join(", ")} is not the symbol of a token in the manifest of chain ${config.chainId} (give its address instead)`);
  }
  const feeTokens = acceptedFeeTokens(manifest, config.feeTokens);
  const chain = defineChain({
    id: config.chainId,
    name: `chain ${config.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const metrics = createRelayerMetrics();
  // RPC_URLS: several read endpoints, ranked by latency, answers and head height (sdk/rpc/readEndpoints.ts).
  const endpoints =
    transport === undefined && config.rpcUrls.length > 1
      ? new ReadEndpoints({
          urls: config.rpcUrls,
          chainId: config.chainId,
          maxLagBlocks: config.rpcMaxHeadLagBlocks,
          probeMs: config.rpcProbeMs,
          batchWaitMs: 2,
          observer: metrics.readEndpoints,
          logger: logger.child({ component: "rpc" }),
        })
      : undefined;
  await endpoints?.probe();
  endpoints?.start();
  const reads = transport ?? endpoints?.transport() ?? http(config.rpcUrl, { retryCount: 0, timeout: 10_000, batch: { wait: 2 } });
  const rpcName = endpoints === undefined ? `RPC_URL ${config.rpcUrl}` : `RPC_URLS ${config.rpcUrls.join(",")}`;
  // RELAYER_SEND_URLS: signed transactions go to each of them at once; reads stay on the read endpoints.
  const base = config.sendUrls === undefined ? reads : fanOutSends(reads, config.sendUrls, (endpoint, outcome) => metrics.sendEndpoints.inc({ endpoint, outcome }));
  const client = createPublicClient({
    chain,
    transport: observedTransport(base, observeRpc(metrics)),
  });
  const chainId = await client.getChainId().catch(async (error: unknown) => {
    await endpoints?.stop();
    throw new Error(`the relayer cannot reach ${rpcName}: ${errorSummary(error)}`);
  });
  if (chainId !== config.chainId) {
    await endpoints?.stop();
    throw new Error(`${rpcName} serves chain ${chainId}, not CHAIN_ID ${config.chainId}`);
  }

  const backends = await openKeyBackends(config.signers, { production: config.production });
  // RELAYER_TREASURY_SIGNER: opened through the same backends; never one of the signers it pays.
  const treasuryBackend =
    config.treasury === undefined
      ? undefined
      : await openKeyBackend(config.treasury.signer, { production: config.production }).catch(async (error: unknown) => {
          await Promise.all(backends.map((backend) => backend.close()));
          throw new Error(`RELAYER_TREASURY_SIGNER: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        });
  if (treasuryBackend !== undefined && backends.some((backend) => backend.address === treasuryBackend.address)) {
    await Promise.all([...backends, treasuryBackend].map((backend) => backend.close()));
    throw new Error(`RELAYER_TREASURY_SIGNER is ${treasuryBackend.address}, also in RELAYER_SIGNERS: the treasury is a key of its own`);
  }
  for (const backend of backends) if (backend.kind === "unsafe") logger.warn({ signer: backend.address }, "signing with a raw key (unsafe; refused when NODE_ENV=production)");
  const head = new ChainHead(client, config.pollMs);
  const routers = new RegistryRouters(client, head, manifest.contracts.routerRegistry, logger.child({ component: "signing-policy" }));
  let ownedBackends: readonly KeyBackend[] = backends;
  let closeRoster = async (): Promise<void> => undefined;
  const closeBackends = async () => {
    await closeRoster();
    await Promise.all([...ownedBackends, ...(treasuryBackend === undefined ? [] : [treasuryBackend])].map((backend) => backend.close()));
  };
  const store = await openRelayStore(config).then((opened) => observedRelayStore(opened, metrics, logger), async (error: unknown) => {
    await closeBackends();
    throw error;
  });
  try {
    await adoptChainRun(store, client, manifest.deployBlockHash, logger);
    await claimSigners(store, config, backends.map((backend) => backend.address), new Date());
    await routers.load();
    const policy = new SigningPolicy(
      // A cancel may go one replacement bump past RELAYER_MAX_FEE_GWEI (feeBump.ts cancelFees): no further.
      { chainId: config.chainId, maxFeePerGas: bumped(config.maxFeeWei), maxValue: config.maxValuePerTxWei },
      () => routers.routers,
      backends.map((backend) => backend.address),
      logger.child({ component: "signing-policy" }),
      metrics.signingRefusals,
    );
    const pool = new SignerPool([], config.maxPendingPerSigner);
    const roster = new SignerRoster({ client, store, config, logger, pool, policy, treasury: treasuryBackend?.address, metrics, now: () => new Date() });
    // From here the roster owns the signer keys: it closes them when they retire or the relayer stops.
    for (const [index, backend] of backends.entries()) roster.hold(backend, config.signers[index]!);
    ownedBackends = [];
    closeRoster = () => roster.close();
    for (const [index, backend] of backends.entries()) await roster.enrol(backend, config.signers[index]!);
    routers.start(config.pollMs);
    const fees = new NetworkFeeModel(client, "none");
    const reconciler = new NonceReconciler({ client, pool, head, logger, config, metrics });
    // V4's contracts from the manifest, as Permit2's: StateView is periphery, which no router names.
    const uniswapV4 = manifest.uniswapV4 === undefined ? undefined : { poolManager: manifest.uniswapV4.poolManager, stateView: manifest.uniswapV4.stateView };
    const context: RelayContext = { config, client, head, store, pool, reconciler, logger, permit2: manifest.contracts.permit2, ...(uniswapV4 === undefined ? {} : { uniswapV4 }), feeTokens, now: () => new Date(), metrics, fees };
    if (treasuryBackend !== undefined && config.treasury !== undefined) {
      // The value is bounded by the recorded top-ups (RELAYER_TREASURY_DAILY_CAP_ETH); this count adds the gas.
      const spend = new SignerSpend(config.treasury.dailyCapWei + config.dailySpendCapWei);
      const signing = new SigningHealth((digest) => treasuryBackend.signDigest(digest));
      const account = policedAccount(treasuryBackend, policy, { nextNonce: () => 0, spend, health: signing });
      Object.assign(context, { treasury: new Treasury(context, account, config.treasury, signing) });
      // Before any check: top-ups a crash left unfinished are found mined, or their same bytes sent again.
      await context.treasury!.settle();
      logger.info({ treasury: treasuryBackend.address, backend: treasuryBackend.kind }, "treasury key opened; it tops signers up below the floor");
    }
    let queue: RelayQueue | undefined;
    const watcher = new ReceiptWatcher(context, (relayId) => queue?.enqueue(relayId));
    // RELAYER_BATCH_GAS, or a quarter of the block gas limit: a batch leaves room in its block for others.
    const maxBatchGas = config.batch.gas ?? (await client.getBlock({ blockTag: "latest" })).gasLimit / 4n;
    queue = new RelayQueue(context, (relayId, options) => watcher.track(relayId, options), { maxBatchGas });
    metrics.observe({
      queueDepth: () => queue!.depth,
      tracked: () => watcher.size,
      pendingNonces: () => pool.signers.map((signer) => ({ signer: signer.address, pending: signer.nonces.inFlight })),
      dailySpend: () => pool.signers.map((signer) => ({ signer: signer.address, spent: signer.spend.spent(Date.now()) })),
      unpaidGasTotals: () => store.unpaidGasTotals({}),
      webhookBacklog: () => store.webhookBacklog(),
    });
    metrics.signerMinBalance.set(Number(config.minSignerBalanceWei));
    metrics.signerDailySpendCap.set(Number(config.dailySpendCapWei));
    metrics.treasuryDailyCap.set(Number(config.treasury?.dailyCapWei ?? 0n));
    const signerStates = new SignerStateSync(context, roster);
    // Before any relay is chosen: a signer drained while this relayer was down stays drained.
    await signerStates.sync();
    const leases = new LeaseKeeper(context, queue, watcher);
    await leases.recover();
    watcher.start();
    reconciler.start();
    leases.start();
    signerStates.start();
    const { pushed } = config;
    const webhooks = new WebhookDispatcher(store, {
      owner: config.relayerId,
      retry: { baseMs: pushed.retryBaseMs, maxMs: pushed.retryMaxMs, windowMs: pushed.retryWindowMs },
      pollMs: pushed.pollMs,
      // Longer than an attempt, so a live relayer's attempt is never taken over mid-flight.
      leaseMs: pushed.timeoutMs + config.leaseSeconds * 1000,
      concurrency: pushed.concurrency,
      perIntegrator: pushed.maxInFlightPerIntegrator,
      breaker: { failures: pushed.breakerFailures, cooldownMs: pushed.breakerCooldownMs },
      transport: { timeoutMs: pushed.timeoutMs, connectTimeoutMs: pushed.connectTimeoutMs, headersTimeoutMs: pushed.headersTimeoutMs, allowLoopback: pushed.allowLoopback },
      retentionMs: pushed.retentionMs,
    }, logger.child({ component: "webhooks" }));
    await webhooks.start();

    const server = createLimitedServer(createInternalApp(context, queue, (relayId, options) => watcher.track(relayId, options)), config.httpLimits ?? DEFAULT_HTTP_SERVER_LIMITS);
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: NodeJS.ErrnoException) =>
        reject(error.code === "EADDRINUSE" ? new Error(`relayer port ${config.port} on ${config.host} is in use; set RELAYER_PORT to another port (0 picks a free one)`) : error),
      );
      server.listen(config.port, config.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://${config.host}:${port}`;
    const metricsServer =
      config.metrics === undefined
        ? undefined
        : await serveMetrics(metrics.registry, config.metrics.host, config.metrics.port, "RELAYER_METRICS_PORT").catch(async (error: unknown) => {
            await new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            });
            throw error;
          });
    const signers = await Promise.all(pool.signers.map(async (signer) => ({ address: signer.address, balance: await client.getBalance({ address: signer.address }) })));
    logger.info({ url, signers: signers.map((signer) => signer.address), chainId }, "relayer listening");
    return {
      url,
      ...(metricsServer === undefined ? {} : { metricsUrl: metricsServer.url }),
      signers,
      context,
      close: async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await metricsServer?.close();
        await webhooks.stop();
        await signerStates.stop();
        await leases.stop();
        await queue.stop();
        await watcher.stop();
        await reconciler.stop();
        await routers.stop();
        await endpoints?.stop();
        await store.releaseSigners(config.relayerId).catch((error: unknown) => logger.warn({ err: error }, "could not release this relayer's signers; they free up after RELAYER_LEASE_SECONDS"));
        await store.close();
        await closeBackends();
      },
    };
  } catch (error) {
    await routers.stop();
    await endpoints?.stop();
    await store.close();
    await closeBackends();
    throw error;
  }
}
