/**
 * The integrators' entry point, and the only one the package (`npm run pack:sdk`) builds: the client,
 * wire schemas, calldata, typed data and AMM math. Modules inside are exported by name, never
 * wholesale; `api-report.txt` lists every name and a test keeps it current. What the API and the
 * relayer share but integrators never call (storage, relay gas and fee models, the chain head, chain
 * files) is imported by its module path and stays out of the package.
 */
export { DEVNET_CHAIN_ID, DEVNET_DEFAULT_API_PORT, DEVNET_DEFAULT_HOST, DEVNET_DEFAULT_RPC_PORT, devnetApiUrl, devnetChain, devnetRpcUrl, type ApiEnvironment, type RpcEnvironment } from "./chain/devnet";
export { deploymentManifestSchema, manifestPath, missingManifestAdvice, readManifest, writeManifest, type DeploymentManifest } from "./chain/manifest";
export { routerRegistryAbi } from "./abis/routerRegistryAbi";
export { Feature, FEATURE_NAMES, describeFeatures, RegistrySelector, type FeatureId, type RegistryRead } from "./registry/features";
export { encodeRegistryRead, decodeRegistryAddress, decodeFeatureState, type FeatureState } from "./registry/rawRegistryCall";
export {
  readActiveRouter,
  readNextRouter,
  readPreviousRouter,
  readFeatureState,
  type RegistryReader,
  type ReadRegistryParameters,
} from "./registry/readRegistry";
export { SdkError } from "./errors/base";
export { RegistryResponseError, FeatureIdRangeError } from "./errors/registry";

// --- settlement: route actions, router calldata, Permit2 witness typed data ---
export { PERMIT2_ADDRESS } from "./chain/permit2";
export { NATIVE_TOKEN, NATIVE_TOKEN_LOWERCASE, isNativeToken } from "./tokens/native";
export { acceptedFeeTokens, unknownFeeTokenSymbols, parseFeeTokenList, feeTokenListSchema } from "./tokens/feeTokens";
export { takerSwapRouterAbi } from "./abis/takerSwapRouterAbi";
export { gaslessSwapRouterAbi } from "./abis/gaslessSwapRouterAbi";
export { gaslessBatchSwapRouterAbi } from "./abis/gaslessBatchSwapRouterAbi";
export { allowanceHolderAbi } from "./abis/allowanceHolderAbi";
export { takerExactOutputRouterAbi } from "./abis/takerExactOutputRouterAbi";
export { gaslessExactOutputRouterAbi } from "./abis/gaslessExactOutputRouterAbi";
export { permit2Abi } from "./abis/permit2Abi";
export { uniswapV3VenueAbi } from "./abis/uniswapV3VenueAbi";
export { propAmmAbi } from "./abis/propAmmAbi";
export { propAmmAllowlistAbi } from "./abis/propAmmAllowlistAbi";
export { uniswapV2PairAbi, uniswapV2FactoryAbi } from "./abis/uniswapV2Abi";
export {
  type ManifestToken,
  type ManifestPool,
  type ManifestV3Pool,
  type ManifestUniswapV4,
  type ManifestV4Pool,
  type ManifestVenuePool,
  type ManifestPropAmm,
  type ManifestVenue,
  type ManifestV2Venue,
  type ManifestV3Venue,
  type VenueType,
  isManifestV2Pool,
  uniswapV2Venue,
  v2PoolsOf,
} from "./chain/manifest";
export {
  encodeRouteActions,
  decodeRouteActions,
  hashRouteActions,
  RouteOpcode,
  MAX_ROUTE_ACTIONS,
  MAX_LEG_HOPS,
  SPLIT_LEGS,
  splitAmounts,
  type RouteAction,
  type SplitLegAction,
  type V2Hop,
  type V3Hop,
  type PropAmmHop,
  type RouteHopAction,
  MAX_V3_VENUES,
  type V4Hop,
  isHopAction,
} from "./calldata/routeActions";
export { type SwapOrder } from "./calldata/swapOrder";
export { SIGNATURE_BYTES, SIGNATURE_PLACEHOLDER, bytesArgumentOffset } from "./calldata/signaturePlaceholder";
export { patchSignature, normaliseSignature } from "./calldata/patchSignature";
export {
  encodeSwapWithPermit,
  encodeSwapNative,
  encodeSwapWithAllowance,
  encodeSwapGasless,
  type UnsignedCalldata,
} from "./calldata/settlementCalldata";
export { encodeSwapGaslessBatch, decodeSwapGasless, MAX_GASLESS_BATCH_ORDERS, type SignedGaslessOrder } from "./calldata/gaslessBatchCalldata";
export {
  encodeSwapGaslessWithTokenPermit,
  encodeSwapGaslessFromContract,
  encodeTokenPermitCall,
  erc2612PermitAbi,
  decodeGaslessCall,
  MAX_CONTRACT_SIGNATURE_BYTES,
  type GaslessCall,
  type SignedGaslessExactOutputOrder,
  type TokenPermitSignature,
} from "./calldata/gaslessApprovalCalldata";
export { gaslessTokenPermitAbi } from "./abis/gaslessTokenPermitAbi";
export { readTokenPermitDomain, buildTokenPermitTypedData, tokenPermitTypes, type TokenPermitDomain, type TokenPermitParameters } from "./typedData/tokenPermit";
export {
  buildSwapPermitTypedData,
  buildGaslessPermitTypedData,
  withDomainType,
  swapPermitTypes,
  gaslessPermitTypes,
  type Permit2Domain,
  type SwapWitness,
  type PermitTypedDataParameters,
  type RelayerFee,
} from "./typedData/permit2Witness";
export { type ExactOutputOrder } from "./calldata/exactOutputOrder";
export {
  encodeSwapExactOutputWithPermit,
  encodeSwapExactOutputNative,
  encodeSwapExactOutputWithAllowance,
  encodeSwapGaslessExactOutput,
  exactOutputSelector,
  encodePermitCall,
  encodeNativeCall,
  encodeAllowanceCall,
  encodeGaslessCall,
} from "./calldata/settlementCalldata";
export {
  buildExactOutputPermitTypedData,
  buildGaslessExactOutputPermitTypedData,
  exactOutputPermitTypes,
  gaslessExactOutputPermitTypes,
  buildPermitTypedData,
  buildGaslessTypedData,
  type ExactOutputPermitParameters,
} from "./typedData/permit2Witness";
export { EXACT_INPUT, EXACT_OUTPUT, type OrderKind, type OrderOf, type AnyOrderKind, type SettlementFunctions } from "./orders/orderKinds";
export { getAmountOut, getAmountIn } from "./amm/v2Math";
export { routeOutput, routePairs, routeHops, type PairReserves, type RouteHop, type RouteVenueStates } from "./amm/routeOutput";
export { uniswapV3PoolAbi, uniswapV3FactoryAbi } from "./abis/uniswapV3PoolAbi";
export { MIN_TICK, MAX_TICK, MIN_SQRT_RATIO, MAX_SQRT_RATIO, getSqrtRatioAtTick, getTickAtSqrtRatio } from "./amm/v3/tickMath";
export { V3MathError } from "./amm/v3/fullMath";
export { swapFeePips, MAX_SWAP_FEE } from "./amm/v3/swapFee";
export { v3PoolAddress } from "./amm/v3/poolAddress";
export type { V3Tick } from "./amm/v3/tickList";
export {
  simulateConcentratedSwap,
  quoteConcentratedExactInput,
  quoteConcentratedExactOutput,
  defaultSqrtPriceLimit,
  type ConcentratedPoolState,
  type ConcentratedSwapResult,
} from "./amm/v3/swapSimulator";
export { afterInitialize, afterSwap, afterLiquidityChange, afterV3PoolEvent, nearKnownTickEdge, type V3PoolState, type V3TickState } from "./amm/v3/v3PoolState";
export { readV3PoolState, DEFAULT_WORDS_EACH_SIDE, type V3PoolDescriptor } from "./amm/v3/v3PoolSnapshot";
export { readV3PoolEvents, type V3PoolEvent } from "./amm/v3/v3PoolEvents";
export { logPosition, chainOrder, type LogPosition, type LogWindow } from "./chain/logPosition";
export { decodeQuoteOrder, decodeExactOutputQuoteOrder, decodeSettlementCall, type QuoteCall, type ExactOutputQuoteCall, type SettlementCall, type QuoteCallKind } from "./calldata/decodeQuoteOrder";
export { SignatureLengthError, SignatureOffsetError, RouteActionError, SwapCalldataError, BatchSizeError, BatchGasLimitsError, GaslessCalldataError } from "./errors/calldata";

// --- onboarding: payload hashes and nonce messages of the integrator onboarding API ---
export { OnboardingAction, onboardingActions, actionRequiresPayloadHash } from "./onboarding/actions";
export {
  applicationPayloadHash,
  apiKeyPayloadHash,
  revokeApiKeyPayloadHash,
  webhookPayloadHash,
  encodeWebhookPayload,
  encodeApplicationPayload,
  encodeApiKeyPayload,
  encodeRevokeApiKeyPayload,
  hashPayloadText,
  type ApplicationPayload,
  type ApiKeyPayload,
  type RevokeApiKeyPayload,
  type WebhookPayload,
} from "./onboarding/payloadHash";
export {
  createOnboardingMessage,
  parseOnboardingMessage,
  onboardingStatement,
  type OnboardingMessage,
  type OnboardingMessageParameters,
} from "./onboarding/challengeMessage";
export { SLUG_PATTERN, isValidSlug } from "./onboarding/slug";
export { PayloadFieldError, OnboardingMessageError } from "./errors/onboarding";
export { onboardIntegrator, OnboardingRequestError, type OnboardIntegratorParameters, type OnboardedIntegrator } from "./onboarding/onboardingClient";
export { isRevertError } from "./chain/revertError";
export { isExecutionFailure } from "./chain/executionFailure";
export { rpcConnectionFailure, type RpcConnectionFailure } from "./chain/rpcConnectionFailure";
export {
  relayStatuses,
  finalRelayStatuses,
  relayTransitions,
  isFinalRelayStatus,
  canMoveRelay,
  relayReasons,
  type RelayStatus,
  type RelayReason,
} from "./relay/relayStatus";
export { relayCancelOutcomes, type RelayCancelOutcome } from "./relay/relayCancelOutcome";
export { encodeInvalidateNonce, permit2NonceBit, type Permit2NonceBit } from "./calldata/invalidateNonce";
export type {
  RelayRequestJson,
  RelayTransactionJson,
  RelayBatchJson,
  RelayBatchSlotJson,
  RelayJson,
  InternalRelayJson,
  RelayHandoffResult,
  GaslessStandingJson,
  GasBudgetJson,
  IntegratorGasBudgetJson,
  InvalidateNonceJson,
  RelayCancellationJson,
  InternalRelayCancellationJson,
} from "./relay/relayWire";
export type {
  RelayStatusEventJson,
  RelayEventJson,
  RelayFeedEventJson,
  WebhookCircuitJson,
  WebhookDeliveryJson,
  WebhookDeliveriesJson,
  WebhookFailureCode,
  WebhookRegistrationJson,
} from "./relay/pushedStatusWire";
export {
  newWebhookSecret,
  signWebhook,
  webhookHeaders,
  verifyWebhook,
  webhookHeader,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookHeaders,
  type ReceivedHeaders,
  type ReceivedBody,
} from "./webhooks/webhookSignature";
export { verifyRelayWebhook, type VerifyRelayWebhookOptions } from "./webhooks/relayWebhook";
export { readRelayWebhook, relayWebhookHandler, type ReadRelayWebhookOptions, type WebhookRequest } from "./webhooks/relayWebhookReceiver";
export { WebhookVerificationError, WebhookUrlError, type WebhookRejection } from "./errors/webhook";

// --- the integrator client: createTradingClient and what it returns and throws ---
export {
  createTradingClient,
  type TradingClient,
  type TradingClientOptions,
  type QuoteParameters,
} from "./client/createTradingClient";
export { type TrustedContracts } from "./client/verifyQuoteTargets";
export { verifyQuoteOrder } from "./client/verifyQuoteOrder";
export { readRouterV3Venues, type RouterV3Venues, type RouterV3Venue } from "./client/routerV3Venues";
export { refuseAllowlistedPairTokens, routeTokens } from "./client/routePairTokens";
export { readRouterPropAmmAllowlist } from "./client/routePairTokens";
export { readRouterPoolManager, readRouterV4Revision, readRouterV4Venue, V4_REVISION_EXACT_OUTPUT, type RouterV4Venue } from "./client/routerPoolManager";
export { quoteCallKind } from "./client/readQuoteCall";
export { type QuoteExpectation } from "./client/quoteExpectation";
export { QuoteMismatchError, QuoteFeeError, QuoteCalldataError } from "./errors/quoteCheck";
export { type TradingWallet, type ChainReader } from "./client/tradingWallet";
export { type ClientLogger } from "./client/clientLogger";
export { type FetchFunction } from "./client/apiTransport";
export { type TokenSnapshot, type SnapshotRefresh } from "./client/snapshotCache";
export { type ExecutedQuote } from "./client/executeQuote";
export { type SignedQuote } from "./client/signQuote";
export { type UnsignedTransaction } from "./client/ensureAllowance";
export { type GaslessSignatures } from "./client/gaslessSigning";
export { checkedAddress, type AddressInput } from "./client/addressInput";
export { fromEthersSigner, type EthersSigner, type EthersTransactionRequest, type FromEthersSignerOptions } from "./client/ethersSigner";
export { newIdempotencyKey, type SubmitGaslessOptions, type WaitForRelayOptions } from "./client/gaslessRelay";
export type { WatchRelayOptions } from "./client/watchRelay";
export type { WebhookDeliveriesOptions } from "./client/integratorWebhook";
export { readServerSentEvents, type ServerSentEvent } from "./client/serverSentEvents";
export { acceptedRouters } from "./client/routerCheck";
export {
  type IntegratorProfile,
  type ApplicationResult,
  type CreatedApiKey,
  type RevokedApiKey,
  type IntegratorProfiles,
  type OnboardingResult,
} from "./client/onboardingSteps";
export {
  ApiError,
  InsufficientBalanceError,
  StaleQuoteError,
  UntrustedRouterError,
  ChainConnectionError,
  AddressInputError,
  TokenNotSupportedError,
  SnapshotFormatError,
  QuoteKindError,
  ClientConfigError,
  TransactionRevertedError,
  RelayTimeoutError,
} from "./errors/client";
export { quoteJsonSchema, priceJsonSchema, permit2TypedDataJsonSchema, type QuoteJson, type PriceJson } from "./wire/quoteJson";
export { snapshotJsonSchema, type SnapshotJson } from "./wire/snapshotJson";
export { tokenListJsonSchema, type TokenListJson } from "./wire/tokenListJson";
export { sourcesJsonSchema, type SourcesJson } from "./wire/sourcesJson";
export { relayJsonSchema, relayCancellationJsonSchema } from "./wire/relayJson";
export { relayStatusEventJsonSchema, webhookRegistrationJsonSchema, webhookDeliveriesJsonSchema } from "./wire/pushedStatusJson";
export { errorJsonSchema, type ErrorJson } from "./wire/errorJson";
export {
  nonceJsonSchema,
  applicationJsonSchema,
  createdApiKeyJsonSchema,
  integratorProfilesJsonSchema,
  revokedApiKeyJsonSchema,
  healthJsonSchema,
} from "./wire/onboardingJson";
export { uniswapV4PoolManagerAbi, uniswapV4StateViewAbi, uniswapV4QuoterAbi } from "./abis/uniswapV4Abi";
export { v4PoolId, swapV4Hop, v4HopPoolKey, isDynamicFee, sortCurrencies, NATIVE_CURRENCY, DYNAMIC_FEE_FLAG, type V4PoolKey } from "./amm/v4/poolKey";
export { readV4PoolState } from "./amm/v4/v4PoolSnapshot";
export { readV4PoolEvents, type V4PoolEvent } from "./amm/v4/v4PoolEvents";
export { initializedV4Pool, afterV4PoolEvent, applyV4PoolEvents, type V4PoolState } from "./amm/v4/v4PoolState";
export { V4_HOOK_FLAGS, V4_HOOK_MASK, hookFlagsOf, hasHookFlag, v4HookExclusion, isV4PoolRoutable, type V4HookFlag, type V4HookExclusion } from "./amm/v4/hookPermissions";
export { liquidityForAmounts } from "./amm/v3/liquidityAmounts";
export { tickBitmapWord, tickBitmapWindow, initializedTicksIn, tickRangeOf, type TickBitmapWindow } from "./amm/v3/tickBitmapWindow";

// --- keys: Web3 Secret Storage keystores and the signing CLIs' signer choice (docs/operators/keys.md) ---
export { encryptKeystore, type EncryptKeystoreOptions } from "./keys/encryptKeystore";
export { decryptKeystore, type DecryptedKeystore } from "./keys/decryptKeystore";
export { parseKeystore, web3SecretStorageSchema, type Web3SecretStorage } from "./keys/keystoreSchema";
export { KEYSTORE_KDF_LIMITS, STANDARD_SCRYPT } from "./keys/keystoreKdf";
export { defaultKeystoreDir, findKeystore, listKeystores, readKeystoreFile, writeKeystoreFile, type KeystoreEntry, type KeystoreListing } from "./keys/keystoreDirectory";
export { promptHidden, type PromptStreams } from "./keys/hiddenPrompt";
export { CLI_SIGNER_ARGS, CLI_SIGNER_USAGE, cliSignerChosen, cliSignerOptionsOf, parseSignerEnvironment, signerEnvironmentSchema, type CliSignerOptions, type SignerEnvironment } from "./keys/cliSignerOptions";
export { readPasswordFile, resolveCliSigner, type ResolveCliSignerParameters } from "./keys/resolveCliSigner";
export { KeystoreFormatError, KeystoreKdfError, KeystorePasswordError, KeystoreNotFoundError, SignerChoiceError } from "./errors/keystore";
