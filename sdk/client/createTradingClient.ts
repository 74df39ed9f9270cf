import { PERMIT2_ADDRESS } from "../chain/permit2";
import { isAddress, publicActions, type Address, type Hex } from "viem";
import { DEVNET_CHAIN_ID } from "../chain/devnet";
import { ClientConfigError, QuoteKindError, TokenNotSupportedError } from "../errors/client";
import { readFeatureState } from "../registry/readRegistry";
import type { FeatureState } from "../registry/rawRegistryCall";
import type { WebhookDeliveriesJson, WebhookRegistrationJson } from "../relay/pushedStatusWire";
import type { RelayCancellationJson, RelayJson } from "../relay/relayWire";
import { NATIVE_TOKEN_LOWERCASE } from "../tokens/native";
import { priceJsonSchema, quoteJsonSchema, type PriceJson, type QuoteJson } from "../wire/quoteJson";
import { ApiTransport, type FetchFunction } from "./apiTransport";
import { silentLogger, type ClientLogger } from "./clientLogger";
import { ensureAllowance } from "./ensureAllowance";
import { assertBalance, executeQuote, signedCalldata, simulateFromTaker, type ExecutedQuote } from "./executeQuote";
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
  /** The on-chain contracts the client trusts; the router registry is needed to execute quotes. */
  contracts?: TrustedContracts;
  /**
   * The integrator's fee recipient (the key's `integrator_fee_recipient`, the owner wallet): the only
   * address a quote's route may pay a fee to. Without it, the quote's own `platform_fee.recipient`.
   */
  integratorFeeRecipient?: Address;
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
  taker: Address;
  slippageBps?: number;
  recipient?: Address;
  settlement?: "permit2" | "allowance";
  feeBps?: number;
  /** Upper bound on pools per path (1-16; the API's paths have at most 3). */
  maxHops?: number;
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
  /** The chain's current snapshot (fetched once, then polled with If-None-Match). */
  getSupportedTokens(chainId?: number): Promise<TokenSnapshot>;
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
   * For a gasless quote: verifies, approves Permit2 when needed (a transaction), signs, and simulates;
   * returns the signature. `swapGasless` instead signs the quote's `approval` when it has one: no transaction.
   */
  signGaslessQuote(quote: QuoteJson, wallet: TradingWallet, expected?: QuoteExpectation): Promise<Hex>;
  /**
   * For a gasless quote with an `approval` (Permit2 not approved, the sell token has EIP-2612): the
   * wallet's signature of the token permit, for `submitGasless(..., { approvalSignature })`. No
   * transaction, no ETH. Undefined when the quote offers no approval.
   */
  signGaslessApproval(quote: QuoteJson, wallet: TradingWallet): Promise<Hex | undefined>;
  submitGasless(quote: QuoteJson | string, signature: Hex, options?: SubmitGaslessOptions): Promise<RelayJson>;
  getRelay(relayId: string): Promise<RelayJson>;
  waitForRelay(relayId: string, options?: WaitForRelayOptions): Promise<RelayJson>;
  /** POST /gasless/cancel/{relay_id}: cancels the relay, or replaces its pending swap; see `cancelRelay` in gaslessRelay.ts. */
  cancelRelay(relayId: string): Promise<RelayCancellationJson>;
  /** Follows a relay to its final status over server-sent events (GET /gasless/events), polling when those are unavailable. */
  watchRelay(relayId: string, options?: WatchRelayOptions): Promise<RelayJson>;
  /** signGaslessQuote + submitGasless + waitForRelay. */
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
  if (parameters.gasless) entries.push(["permit2_owner", parameters.taker]);
  return new URLSearchParams(entries).toString();
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
    if (options.contracts === undefined) {
      throw new ClientConfigError("no router registry configured: the client cannot verify the quote's router", "Pass contracts: { routerRegistry } (the chain's deployment; the devnet writes it to deployments/4663.json).");
    }
    return options.contracts;
  };

  // The request each quote answers, so executeQuote can check the quote against it; a WeakMap lets
  // quotes be collected as usual.
  const requests = new WeakMap<QuoteJson, QuoteParameters>();
  const expectationFor = (quote: QuoteJson, signer: TradingWallet | undefined, explicit: QuoteExpectation | undefined): QuoteExpectation => {
    if (explicit !== undefined) return { feeRecipient: options.integratorFeeRecipient, ...explicit };
    const request = requests.get(quote);
    const taker = signer?.account.address;
    if (request !== undefined) return expectationOfRequest(request, { signer: taker, chainId: defaultChainId, feeRecipient: options.integratorFeeRecipient });
    if (taker === undefined) {
      throw new ClientConfigError(`quote ${quote.quote_id} was not fetched by this client: its request is unknown`, "Pass the request to verifyQuote(quote, { taker, recipient, sellToken, buyToken, sellAmount, feeBps }).");
    }
    return { taker, feeRecipient: options.integratorFeeRecipient };
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
    const quote = quoteJsonSchema.parse(await requestQuote("/quote", parameters));
    requests.set(quote, parameters);
    return quote;
  };

  const signGaslessQuote = async (quote: QuoteJson, wallet: TradingWallet, expected?: QuoteExpectation): Promise<Hex> => {
    if (!quote.gasless) throw new QuoteKindError(quote.quote_id, "is not a gasless quote", "Use executeQuote: the taker sends it.");
    assertBalance(quote);
    const reader = readerFor(wallet);
    await verifyQuote(reader, contractsOrThrow(), quote, expectationFor(quote, wallet, expected));
    await ensureAllowance(quote, wallet, reader, logger);
    const { data, signature } = await signedCalldata(quote, wallet);
    // Anyone may send a gasless swap, so the taker can simulate it exactly as the relayer will.
    await simulateFromTaker(quote, data, wallet, reader);
    return signature!;
  };

  /**
   * The order's signature for a quote whose approval is relayed with the swap: no approve transaction,
   * and no simulation from the taker (the swap cannot pull before the permit); the API simulates the
   * permit and the swap together at submission.
   */
  const signGaslessOrderWithApproval = async (quote: QuoteJson, wallet: TradingWallet, expected?: QuoteExpectation): Promise<Hex> => {
    if (!quote.gasless) throw new QuoteKindError(quote.quote_id, "is not a gasless quote", "Use executeQuote: the taker sends it.");
    assertBalance(quote);
    await verifyQuote(readerFor(wallet), contractsOrThrow(), quote, expectationFor(quote, wallet, expected));
    return (await signedCalldata(quote, wallet)).signature!;
  };

  const signGaslessApproval = async (quote: QuoteJson, wallet: TradingWallet): Promise<Hex | undefined> => {
    if (quote.approval === null || quote.approval === undefined) return undefined;
    const { eip712 } = quote.approval;
    if (eip712.message.owner.toLowerCase() !== wallet.account.address.toLowerCase() || eip712.message.spender.toLowerCase() !== PERMIT2_ADDRESS.toLowerCase()) {
      throw new QuoteKindError(quote.quote_id, "has an approval for another owner or spender than this wallet and Permit2", "Request a fresh quote for this wallet.");
    }
    // The permit approves exactly what the signed order lets Permit2 move (sell amount plus fee), no more.
    if (quote.permit2 === undefined || BigInt(eip712.message.value) !== BigInt(quote.permit2.message.permitted.amount)) {
      throw new QuoteKindError(quote.quote_id, "has an approval for another amount than its order moves", "Request a fresh quote; do not sign it.");
    }
    const { EIP712Domain: _domain, ...types } = eip712.types;
    const { owner, spender, value, nonce, deadline } = eip712.message;
    return wallet.signTypedData({ account: wallet.account, domain: eip712.domain, types, primaryType: "Permit", message: { owner, spender, value: BigInt(value), nonce: BigInt(nonce), deadline: BigInt(deadline) } });
  };

  const client: TradingClient = {
    apiUrl: transport.apiUrl,
    getSupportedTokens: (chainId = defaultChainId) => snapshots.get(chainId),
    isSupported: (chainId, token) => snapshots.isSupported(chainId, token),
    refreshSupportedTokens: (chainId = defaultChainId) => snapshots.refresh(chainId),
    getQuote,
    getPrice: async (parameters) => priceJsonSchema.parse(await requestQuote("/price", parameters)),
    executeQuote: (quote, wallet, expected) => executeQuote(quote, wallet, { reader: readerFor(wallet), contracts: contractsOrThrow(), logger, expected: expectationFor(quote, wallet, expected) }),
    signQuote: (quote, wallet, expected) => signQuote(quote, wallet, { reader: readerFor(wallet), contracts: contractsOrThrow(), expected: expectationFor(quote, wallet, expected) }),
    verifyQuote: async (quote, expected) => {
      assertBalance(quote);
      await verifyQuote(readerFor(undefined), contractsOrThrow(), quote, expectationFor(quote, undefined, expected));
    },
    signGaslessQuote,
    signGaslessApproval,
    submitGasless: (quote, signature, submitOptions) => submitGasless(transport, typeof quote === "string" ? quote : quote.quote_id, signature, submitOptions),
    getRelay: (relayId) => getRelay(transport, relayId),
    waitForRelay: (relayId, waitOptions) => waitForRelay(transport, relayId, waitOptions),
    cancelRelay: (relayId) => cancelRelay(transport, relayId),
    watchRelay: (relayId, watchOptions) => watchRelay(transport, relayId, watchOptions),
    swapGasless: async (quote, wallet, swapOptions = {}) => {
      // Two messages and no transaction when the quote offers the token permit; otherwise the wallet
      // approves Permit2 first. Either way the quote is verified before anything is signed.
      const offersApproval = quote.approval !== null && quote.approval !== undefined;
      const signature = offersApproval ? await signGaslessOrderWithApproval(quote, wallet, swapOptions.expected) : await signGaslessQuote(quote, wallet, swapOptions.expected);
      const approvalSignature = offersApproval ? await signGaslessApproval(quote, wallet) : undefined;
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
    readFeature: (featureId) => readFeatureState(readerFor(undefined), { registry: contractsOrThrow().routerRegistry, featureId }),
    close: () => snapshots.close(),
  };
  return client;
}
