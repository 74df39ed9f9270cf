import { isAddress, publicActions, type Hex } from "viem";
import { DEVNET_CHAIN_ID } from "../chain/devnet";
import { ClientConfigError, TokenNotSupportedError } from "../errors/client";
import { readFeatureState } from "../registry/readRegistry";
import type { FeatureState } from "../registry/rawRegistryCall";
import type { WebhookDeliveriesJson, WebhookRegistrationJson } from "../relay/pushedStatusWire";
import type { RelayCancellationJson, RelayJson } from "../relay/relayWire";
import { NATIVE_TOKEN_LOWERCASE } from "../tokens/native";
import { priceJsonSchema, quoteJsonSchema, type PriceJson, type QuoteJson } from "../wire/quoteJson";
import { tokenListJsonSchema, type TokenListJson } from "../wire/tokenListJson";
import { ApiTransport, type FetchFunction } from "./apiTransport";
import { silentLogger, type ClientLogger } from "./clientLogger";
import { assertBalance, executeQuote, type ExecutedQuote } from "./executeQuote";
import { checkedAddress, optionalAddress, type AddressInput } from "./addressInput";
import { signGasless, signGaslessApproval, type GaslessSignatures } from "./gaslessSigning";
import { cancelRelay, getRelay, submitGasless, waitForRelay, type SubmitGaslessOptions, type WaitForRelayOptions } from "./gaslessRelay";
import { watchRelay, type WatchRelayOptions } from "./watchRelay";
import { getWebhookDeliveries, type WebhookDeliveriesOptions } from "./integratorWebhook";
import { OnboardingSteps, type ApplicationResult, type CreatedApiKey, type IntegratorProfile, type IntegratorProfiles, type OnboardingResult, type RevokedApiKey } from "./onboardingSteps";
import { signQuote, type SignedQuote } from "./signQuote";
import { SnapshotCache, type SnapshotRefresh, type TokenSnapshot } from "./snapshotCache";
import { expectationOfRequest, type QuoteExpectation } from "./quoteExpectation";
import type { ChainReader, TradingWallet } from "./tradingWallet";
import { verifyQuote } from "./verifyQuote";
import type { TrustedContracts } from "./verifyQuoteTargets";

export type TradingClientOptions = {
  /** Base URL of the API, e.g. http://127.0.0.1:8080. */
  apiUrl: string;
  /** API key for trading endpoints (quote, gasless); onboarding needs none. */
  apiKey?: string;
  /** Chain reads (registry, simulation, receipts); defaults to the wallet's transport when executing. */
  publicClient?: ChainReader;
  /** The on-chain contracts the client trusts; the router registry is needed to execute quotes. Checked addresses (AddressInputError naming the field). */
  contracts?: { routerRegistry: AddressInput; allowanceHolder?: AddressInput; /** The chain's Permit2 (chain file `permit2`, manifest `contracts.permit2`); default the canonical address. */ permit2?: AddressInput };
  /**
   * The integrator's fee recipient (the key's `integrator_fee_recipient`, the owner wallet): the only
   * address a quote's route may pay a fee to. Without it, the quote's own `platform_fee.recipient`.
   */
  integratorFeeRecipient?: AddressInput;
  /** Chain used when a call omits chainId; default 4663. */
  chainId?: number;
  fetch?: FetchFunction;
  logger?: ClientLogger;
  /** Snapshot poll interval, clamped to 15-60 s; default 30 s. */
  snapshotPollMs?: number;
  /** Attempts of retryable requests (GETs, idempotent gasless submits); default 4. */
  maxAttempts?: number;
  /** First retry delay without Retry-After; default 250 ms. */
  retryBaseDelayMs?: number;
  /** Per-attempt HTTP timeout; none by default. */
  requestTimeoutMs?: number;
};

export type QuoteParameters = {
  chainId?: number;
  /** Token addresses (any case) or, passed through to the API, symbols such as "USDC" or "ETH". */
  sellToken: string;
  buyToken: string;
  /**
   * Exactly one of sellAmount and buyAmount. `sellAmount`: sell this much (exact input). `buyAmount`:
   * buy exactly this much for at most the quote's `max_sell_amount` (exact output).
   */
  sellAmount?: bigint | string;
  buyAmount?: bigint | string;
  /** `token`: the amount is whole tokens with a decimal point ("1.5"), converted by the API with the token's decimals; default base units. */
  amountUnit?: "base" | "token";
  /** viem's `Address` or a plain string such as ethers' `wallet.address`; checked (AddressInputError, field `taker`). */
  taker: AddressInput;
  slippageBps?: number;
  /** Checked like `taker` (field `recipient`). */
  recipient?: AddressInput;
  settlement?: "permit2" | "allowance";
  feeBps?: number;
  /** Upper bound on pools per path (1-16; the API's paths have at most 3). */
  maxHops?: number;
  /** Venues whose pools the route must not use (`excluded_sources`), by the names hops' `source` shows; an unknown name is a 400. */
  excludedSources?: readonly string[];
  /** A gasless quote: the relayer sends the swap and takes its fee in the sell token. */
  gasless?: boolean;
  /**
   * A real user asked for this pair. Only then is a token outside the snapshot sent to the API, as one
   * probe (no retries) that records demand; otherwise the client refuses without calling /quote.
   */
  genuineDemand?: boolean;
  signal?: AbortSignal;
};

export type TradingClient = {
  readonly apiUrl: string;
  /** The chain's current snapshot (fetched once, then polled with If-None-Match): the parsed set, and `json`, the body as served. */
  getSupportedTokens(chainId?: number): Promise<TokenSnapshot>;
  /** GET /tokens: every supported token with its symbol, name, decimals, source and type (one request, no cache). */
  getTokens(chainId?: number): Promise<TokenListJson>;
  isSupported(chainId: number, token: string): Promise<boolean>;
  /** One conditional refresh now, as the poll timer does. */
  refreshSupportedTokens(chainId?: number): Promise<SnapshotRefresh>;
  getQuote(parameters: QuoteParameters): Promise<QuoteJson>;
  /**
   * GET /price: the route, amounts, fees and gas a quote would have now, without a transaction to
   * sign (no tx, no permit2, nothing reserved); for polling prices. Takes the key's price bucket.
   */
  getPrice(parameters: QuoteParameters): Promise<PriceJson>;
  /**
   * Verifies (see verifyQuote), approves, signs, simulates, sends and waits. `expected` is needed only
   * for a quote this client did not fetch with getQuote (whose request it remembers); without either,
   * the wallet must be the recipient and the rest is checked against the quote JSON.
   */
  executeQuote(quote: QuoteJson, wallet: TradingWallet, expected?: QuoteExpectation): Promise<ExecutedQuote>;
  /**
   * The checks executeQuote runs before signing: the balance issue; the order in tx.data and the permit
   * message against the request and the quote JSON (QuoteMismatchError, QuoteFeeError,
   * QuoteCalldataError); every contract against the registry (UntrustedRouterError). A quote not from
   * this client's getQuote needs `expected` (at least the taker).
   */
  verifyQuote(quote: QuoteJson, expected?: QuoteExpectation): Promise<void>;
  /**
   * executeQuote's checks and signature without sending anything (custody, multisig): returns the
   * patched transaction, and the approval to send before it when `issues.allowance` is set.
   */
  signQuote(quote: QuoteJson, wallet: TradingWallet, expected?: QuoteExpectation): Promise<SignedQuote>;
  /**
   * What swapGasless signs, for the step-by-step path: verifies the quote; when it offers a token
   * permit (`approval`), signs the order and the permit and sends nothing (a wallet with no ETH
   * trades); otherwise approves Permit2 when needed (a transaction), signs and simulates. Pass both to
   * `submitGasless(quote, signature, { approvalSignature })`.
   */
  signGasless(quote: QuoteJson, wallet: TradingWallet, expected?: QuoteExpectation): Promise<GaslessSignatures>;
  /**
   * signGasless, returning the order's signature only: the token permit's signature, when there is
   * one, is remembered with the quote, and `submitGasless(quote, signature)` (the quote object, not
   * its id) sends it along.
   */
  signGaslessQuote(quote: QuoteJson, wallet: TradingWallet, expected?: QuoteExpectation): Promise<Hex>;
  /**
   * For a gasless quote with an `approval` (Permit2 not approved, the sell token has EIP-2612): the
   * wallet's signature of the token permit, for `submitGasless(..., { approvalSignature })`. No
   * transaction, no ETH. Undefined when the quote offers no approval.
   */
  signGaslessApproval(quote: QuoteJson, wallet: TradingWallet): Promise<Hex | undefined>;
  /** POST /gasless/submit; a quote object signed with signGaslessQuote carries its token permit's signature unless `approvalSignature` is given. */
  submitGasless(quote: QuoteJson | string, signature: Hex, options?: SubmitGaslessOptions): Promise<RelayJson>;
  getRelay(relayId: string): Promise<RelayJson>;
  waitForRelay(relayId: string, options?: WaitForRelayOptions): Promise<RelayJson>;
  /** POST /gasless/cancel/{relay_id}: cancels the relay, or replaces its pending swap; see `cancelRelay` in gaslessRelay.ts. */
  cancelRelay(relayId: string): Promise<RelayCancellationJson>;
  /** Follows a relay to its final status over server-sent events (GET /gasless/events), polling when those are unavailable. */
  watchRelay(relayId: string, options?: WatchRelayOptions): Promise<RelayJson>;
  /** signGasless + submitGasless + waitForRelay. */
  swapGasless(quote: QuoteJson, wallet: TradingWallet, options?: WaitForRelayOptions & SubmitGaslessOptions & { expected?: QuoteExpectation }): Promise<RelayJson>;
  /** Application, then an API key when the profile is active. */
  onboard(wallet: TradingWallet, profile: IntegratorProfile): Promise<OnboardingResult>;
  apply(wallet: TradingWallet, profile: IntegratorProfile): Promise<ApplicationResult>;
  createApiKey(wallet: TradingWallet, integratorId: number, label: string, chainId?: number): Promise<CreatedApiKey>;
  viewProfile(wallet: TradingWallet, chainId?: number): Promise<IntegratorProfiles>;
  revokeApiKey(wallet: TradingWallet, integratorId: number, keyId: number): Promise<RevokedApiKey>;
  /**
   * Registers (or replaces, rotating the secret) the integrator's webhook, signed by its owner wallet;
   * `url` null clears it. Store the answer's `secret` at once: it is shown only here, and
   * `verifyRelayWebhook` needs it. A URL the API refuses throws WebhookUrlError (`field` "url").
   */
  setWebhook(wallet: TradingWallet, integratorId: number, url: string | null, chainId?: number): Promise<WebhookRegistrationJson>;
  /** GET /gasless/webhook/deliveries: the webhook's URL and its recent deliveries, newest first. Needs the API key. */
  getWebhookDeliveries(options?: WebhookDeliveriesOptions): Promise<WebhookDeliveriesJson>;
  /** The registry's state of a feature (2 taker-submitted, 3 gasless), by raw selector. */
  readFeature(featureId: bigint): Promise<FeatureState>;
  /** Stops the snapshot poll timers. */
  close(): void;
};

function quoteQuery(parameters: QuoteParameters, chainId: number): string {
  const entries: [string, string][] = [
    ["chain_id", String(chainId)],
    ["sell_token", parameters.sellToken],
    ["buy_token", parameters.buyToken],
  ];
  // Both or neither are sent as given: the API answers 400 naming them.
  if (parameters.sellAmount !== undefined) entries.push(["sell_amount", String(parameters.sellAmount)]);
  if (parameters.buyAmount !== undefined) entries.push(["buy_amount", String(parameters.buyAmount)]);
  if (parameters.amountUnit !== undefined) entries.push(["amount_unit", parameters.amountUnit]);
  entries.push(["taker", parameters.taker]);
  if (parameters.slippageBps !== undefined) entries.push(["slippage_bps", String(parameters.slippageBps)]);
  if (parameters.recipient !== undefined) entries.push(["recipient", parameters.recipient]);
  if (parameters.settlement !== undefined) entries.push(["settlement", parameters.settlement]);
  if (parameters.feeBps !== undefined) entries.push(["fee_bps", String(parameters.feeBps)]);
  if (parameters.maxHops !== undefined) entries.push(["max_hops", String(parameters.maxHops)]);
  if (parameters.excludedSources !== undefined) entries.push(["excluded_sources", parameters.excludedSources.join(",")]);
  if (parameters.gasless) entries.push(["permit2_owner", parameters.taker]);
  return new URLSearchParams(entries).toString();
}

/** The request with its addresses checked (AddressInputError naming `taker` or `recipient`) and checksummed. */
function checkedQuoteParameters(parameters: QuoteParameters): QuoteParameters {
  return { ...parameters, taker: checkedAddress("taker", parameters.taker), recipient: optionalAddress("recipient", parameters.recipient) };
}

/** "ETH" is the native placeholder; other symbols cannot be checked against an address snapshot. */
function admissionKey(token: string): string | undefined {
  if (token.toUpperCase() === "ETH") return NATIVE_TOKEN_LOWERCASE;
  return isAddress(token, { strict: false }) ? token.toLowerCase() : undefined;
}

/**
 * The integrator client: snapshot cache, admission, quotes, execution with on-chain router checks,
 * gasless submission and onboarding, over the API's HTTP interface and viem.
 *
 * @example
 * const client = createTradingClient({ apiUrl: "http://127.0.0.1:8080", apiKey, publicClient, contracts: { routerRegistry } });
 * const quote = await client.getQuote({ sellToken: usdc, buyToken: weth, sellAmount: 1_000_000_000n, taker: wallet.account.address });
 * const { receipt } = await client.executeQuote(quote, wallet);
 */
export function createTradingClient(options: TradingClientOptions): TradingClient {
  // Addresses are checked once, here and in each call's parameters, and used checksummed after.
  const configuredContracts: TrustedContracts | undefined =
    options.contracts === undefined
      ? undefined
      : {
          routerRegistry: checkedAddress("contracts.routerRegistry", options.contracts.routerRegistry),
          allowanceHolder: optionalAddress("contracts.allowanceHolder", options.contracts.allowanceHolder),
          permit2: optionalAddress("contracts.permit2", options.contracts.permit2),
        };
  const integratorFeeRecipient = optionalAddress("integratorFeeRecipient", options.integratorFeeRecipient);
  const logger = options.logger ?? silentLogger;
  const defaultChainId = options.chainId ?? DEVNET_CHAIN_ID;
  const fetchFunction: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const transport = new ApiTransport({ apiUrl: options.apiUrl, apiKey: options.apiKey, fetch: fetchFunction, logger, maxAttempts: options.maxAttempts, baseDelayMs: options.retryBaseDelayMs, timeoutMs: options.requestTimeoutMs });
  const snapshots = new SnapshotCache(transport, logger, options.snapshotPollMs);
  const onboarding = new OnboardingSteps(transport);

  const readerFor = (wallet: TradingWallet | undefined): ChainReader => {
    if (options.publicClient !== undefined) return options.publicClient;
    if (wallet !== undefined) return wallet.extend(publicActions);
    throw new ClientConfigError("no publicClient to read the chain with", "Pass publicClient (a viem PublicClient) to createTradingClient.");
  };
  const contractsOrThrow = (): TrustedContracts => {
    if (configuredContracts === undefined) {
      throw new ClientConfigError("no router registry configured: the client cannot verify the quote's router", "Pass contracts: { routerRegistry } (the chain's deployment; the devnet writes it to deployments/4663.json).");
    }
    return configuredContracts;
  };

  // The request each quote answers, so executeQuote can check the quote against it; a WeakMap lets
  // quotes be collected as usual.
  const requests = new WeakMap<QuoteJson, QuoteParameters>();
  const expectationFor = (quote: QuoteJson, signer: TradingWallet | undefined, explicit: QuoteExpectation | undefined): QuoteExpectation => {
    if (explicit !== undefined) {
      return {
        ...explicit,
        taker: checkedAddress("expected.taker", explicit.taker),
        recipient: optionalAddress("expected.recipient", explicit.recipient),
        feeRecipient: optionalAddress("expected.feeRecipient", explicit.feeRecipient) ?? integratorFeeRecipient,
      };
    }
    const request = requests.get(quote);
    const taker = signer?.account.address;
    if (request !== undefined) return expectationOfRequest(request, { signer: taker, chainId: defaultChainId, feeRecipient: integratorFeeRecipient });
    if (taker === undefined) {
      throw new ClientConfigError(`quote ${quote.quote_id} was not fetched by this client: its request is unknown`, "Pass the request to verifyQuote(quote, { taker, recipient, sellToken, buyToken, sellAmount, feeBps }).");
    }
    return { taker, feeRecipient: integratorFeeRecipient };
  };

  /** GET /quote or /price: tokens outside the snapshot are refused here unless the demand is genuine. */
  const requestQuote = async (endpoint: "/quote" | "/price", parameters: QuoteParameters): Promise<unknown> => {
    const chainId = parameters.chainId ?? defaultChainId;
    const snapshot = await snapshots.get(chainId);
    const missing = [parameters.sellToken, parameters.buyToken].filter((token) => {
      const key = admissionKey(token);
      return key !== undefined && !snapshot.addresses.has(key);
    });
    const probe = missing.length > 0;
    if (probe && !parameters.genuineDemand) throw new TokenNotSupportedError(chainId, missing);
    if (probe) logger.info?.(`probing ${endpoint} once for ${missing.join(", ")} (genuine demand)`);
    const response = await transport.request({ method: "GET", path: `${endpoint}?${quoteQuery(parameters, chainId)}`, authenticated: true, retry: !probe, signal: parameters.signal });
    // A probe that succeeded means the token was promoted since our snapshot: pick the new set up.
    if (probe) void snapshots.refresh(chainId);
    return response.body;
  };

  const getQuote = async (parameters: QuoteParameters): Promise<QuoteJson> => {
    const checked = checkedQuoteParameters(parameters);
    const quote = quoteJsonSchema.parse(await requestQuote("/quote", checked));
    requests.set(quote, checked);
    return quote;
  };

  const gaslessContext = (quote: QuoteJson, wallet: TradingWallet, expected: QuoteExpectation | undefined) => ({
    reader: readerFor(wallet),
    contracts: contractsOrThrow(),
    logger,
    expected: expectationFor(quote, wallet, expected),
  });
  // The token permit signed by signGaslessQuote, which returns the order's signature alone, for the submission of that quote.
  const approvalSignatures = new WeakMap<QuoteJson, Hex>();

  const client: TradingClient = {
    apiUrl: transport.apiUrl,
    getSupportedTokens: (chainId = defaultChainId) => snapshots.get(chainId),
    getTokens: async (chainId = defaultChainId) => tokenListJsonSchema.parse((await transport.request({ method: "GET", path: `/tokens?chain_id=${chainId}`, retry: true })).body),
    isSupported: (chainId, token) => snapshots.isSupported(chainId, token),
    refreshSupportedTokens: (chainId = defaultChainId) => snapshots.refresh(chainId),
    getQuote,
    getPrice: async (parameters) => priceJsonSchema.parse(await requestQuote("/price", checkedQuoteParameters(parameters))),
    executeQuote: async (quote, wallet, expected) => executeQuote(quote, wallet, { reader: readerFor(wallet), contracts: contractsOrThrow(), logger, expected: expectationFor(quote, wallet, expected) }),
    signQuote: async (quote, wallet, expected) => signQuote(quote, wallet, { reader: readerFor(wallet), contracts: contractsOrThrow(), expected: expectationFor(quote, wallet, expected) }),
    verifyQuote: async (quote, expected) => {
      // The caller's input first: a bad address is named before any configuration is needed.
      const expectation = expectationFor(quote, undefined, expected);
      assertBalance(quote);
      await verifyQuote(readerFor(undefined), contractsOrThrow(), quote, expectation);
    },
    signGasless: async (quote, wallet, expected) => signGasless(quote, wallet, gaslessContext(quote, wallet, expected)),
    signGaslessQuote: async (quote, wallet, expected) => {
      const { signature, approvalSignature } = await signGasless(quote, wallet, gaslessContext(quote, wallet, expected));
      if (approvalSignature !== undefined) approvalSignatures.set(quote, approvalSignature);
      return signature;
    },
    signGaslessApproval: (quote, wallet) => signGaslessApproval(quote, wallet, configuredContracts?.permit2),
    submitGasless: async (quote, signature, submitOptions = {}) => {
      if (typeof quote === "string") return submitGasless(transport, quote, signature, submitOptions);
      const approvalSignature = submitOptions.approvalSignature ?? approvalSignatures.get(quote);
      return submitGasless(transport, quote.quote_id, signature, { ...submitOptions, ...(approvalSignature === undefined ? {} : { approvalSignature }) });
    },
    getRelay: (relayId) => getRelay(transport, relayId),
    waitForRelay: (relayId, waitOptions) => waitForRelay(transport, relayId, waitOptions),
    cancelRelay: (relayId) => cancelRelay(transport, relayId),
    watchRelay: (relayId, watchOptions) => watchRelay(transport, relayId, watchOptions),
    swapGasless: async (quote, wallet, swapOptions = {}) => {
      // Two messages and no transaction when the quote offers the token permit; otherwise the wallet
      // approves Permit2 first. Either way the quote is verified before anything is signed.
      const { signature, approvalSignature } = await signGasless(quote, wallet, gaslessContext(quote, wallet, swapOptions.expected));
      const relay = await submitGasless(transport, quote.quote_id, signature, { ...swapOptions, ...(approvalSignature === undefined ? {} : { approvalSignature }) });
      swapOptions.onStatus?.(relay);
      return waitForRelay(transport, relay.relay_id, swapOptions);
    },
    onboard: (wallet, profile) => onboarding.onboard(wallet, profile),
    apply: (wallet, profile) => onboarding.apply(wallet, profile),
    createApiKey: (wallet, integratorId, label, chainId) => onboarding.createApiKey(wallet, integratorId, label, chainId),
    viewProfile: (wallet, chainId) => onboarding.viewProfile(wallet, chainId),
    revokeApiKey: (wallet, integratorId, keyId) => onboarding.revokeApiKey(wallet, integratorId, keyId),
    setWebhook: (wallet, integratorId, url, chainId) => onboarding.setWebhook(wallet, integratorId, url, chainId),
    getWebhookDeliveries: (deliveryOptions) => getWebhookDeliveries(transport, deliveryOptions),
    readFeature: async (featureId) => readFeatureState(readerFor(undefined), { registry: contractsOrThrow().routerRegistry, featureId }),
    close: () => snapshots.close(),
  };
  return client;
}
