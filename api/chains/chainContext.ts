import type { PublicClient } from "viem";
import type { DeploymentManifest } from "../../sdk";
import type { UnreadablePools } from "../quote/market/unreadablePools";
import type { RouterVenuesOutage } from "../quote/venues/routerVenuesOutage";
import type { DemandRecorder } from "../tokens/demandRecorder";
import type { SupportedTokens } from "../tokens/supportedTokens";
import type { TokenTaxes } from "../tokens/tokenTaxes";

/** Everything the trading routes know about one served chain. */
export type ChainContext = Readonly<{
  chainId: number;
  /** JSON-RPC client for quote-time reads; batches concurrent calls into one HTTP request. */
  client: PublicClient;
  manifest: DeploymentManifest;
  /** Where the manifest was read from: files that sit beside it (the V4 hook allowlist) are found from it. */
  manifestPath?: string | undefined;
  tokens: SupportedTokens;
  /** The supported tokens' transfer taxes (see "Tokens that tax transfers" in docs/integrators/quotes.md). */
  taxes: TokenTaxes;
  demand: DemandRecorder;
  /** Pools routing had to leave out at the latest quoted block, for logs and GET /health. */
  unreadablePools: UnreadablePools;
  /** Failed reads of the active routers' venues (quotes then route V2 only), for logs and metrics. */
  routerVenuesOutage?: RouterVenuesOutage;
}>;

/** The chains the API serves, by id, with the default used when a request omits chain_id. */
export type ChainRegistry = Readonly<{
  defaultChainId: number;
  get(chainId: number): ChainContext | undefined;
  all(): readonly ChainContext[];
}>;
