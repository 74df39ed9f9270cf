import type { Logger } from "pino";
import type { Chain, Client, Transport } from "viem";
import type { ChainRegistry } from "./chains/chainContext";
import type { Clock } from "./clock";
import type { ApiConfig } from "./config";
import type { ApiMetrics } from "./metrics/apiMetrics";
import type { NonceRangeLeases } from "./quote/nonces/nonceRanges";
import type { RateLimiterFactory } from "./rateLimits/rateLimiterFactory";
import type { Store } from "./store/store";

/** The viem client that asks deployed contract wallets (ERC-1271) about onboarding signatures; keys are verified without it. */
export type SignatureVerifierClient = Client<Transport, Chain | undefined>;

/** Everything a handler may use; built once at start and passed in, so handlers read no globals. */
export type ApiDependencies = Readonly<{
  config: ApiConfig;
  store: Store;
  publicClient: SignatureVerifierClient;
  /** The chains trading routes serve (tokens, pools, quote-time client); empty for an onboarding-only app. */
  chains: ChainRegistry;
  logger: Logger;
  clock: Clock;
  /** Prometheus metrics; createApp makes a registry of its own when absent. */
  metrics?: ApiMetrics;
  /** Where rate limits count: in memory (default) or PostgreSQL, shared by every instance. */
  rateLimiters?: RateLimiterFactory;
  /** Permit2 nonce ranges leased from the database every instance shares (PostgreSQL); absent: this process's own reservations suffice. */
  nonceRangeLeases?: NonceRangeLeases;
}>;
