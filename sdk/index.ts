/**
 * The project's shared TypeScript module: what the API, the relayer, the tests and integrators all
 * import. One entry point; modules inside are imported by name, never re-exported wholesale.
 */
export { DEVNET_CHAIN_ID, DEVNET_DEFAULT_HOST, DEVNET_DEFAULT_RPC_PORT, devnetChain } from "./chain/devnet";
export { deploymentManifestSchema, manifestPath, readManifest, writeManifest, type DeploymentManifest } from "./chain/manifest";
export { routerRegistryAbi } from "./abis/routerRegistryAbi";
export { Feature, RegistrySelector, type FeatureId, type RegistryRead } from "./registry/features";
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
