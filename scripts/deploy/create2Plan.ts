import { encodeDeployData, encodeFunctionData, getAddress, keccak256, toBytes, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { routerRegistryAbi } from "../../sdk/abis/routerRegistryAbi";
import type { ChainFile } from "../../sdk/chain/chainFile";
import { Feature } from "../../sdk/registry/features";
import { readBuildArtifact, type BuildArtifact } from "./buildArtifact";
import {
  create2Address,
  create2Calldata,
  DETERMINISTIC_DEPLOYER,
  DETERMINISTIC_DEPLOYER_FUNDING,
  DETERMINISTIC_DEPLOYER_GAS,
  DETERMINISTIC_DEPLOYER_GAS_PRICE,
  DETERMINISTIC_DEPLOYER_SIGNER,
  DETERMINISTIC_DEPLOYER_TRANSACTION,
  deterministicDeployerState,
} from "./deterministicDeployer";

/**
 * The one CREATE2 salt of our contracts. With the same creation code and constructor arguments a
 * contract lands at the same address on every chain; the registry's (and so every contract that names
 * it) depends on its first administrator, the deployer.
 */
export const DEPLOY_SALT: Hex = keccak256(toBytes("token-swap-trading-api"));

/** The contracts `npm run deploy` puts on a chain, in order, with their build names. */
export const DEPLOYED_CONTRACTS = {
  routerRegistry: "contracts/registry/RouterRegistry.sol:RouterRegistry",
  allowanceHolder: "contracts/allowance/AllowanceHolder.sol:AllowanceHolder",
  propAmmAllowlist: "contracts/registry/PropAmmAllowlist.sol:PropAmmAllowlist",
  takerSwapRouter: "contracts/routers/TakerSwapRouterV3.sol:TakerSwapRouterV3",
  gaslessSwapRouter: "contracts/routers/GaslessBatchSwapRouterV2.sol:GaslessBatchSwapRouterV2",
} as const;

export type DeployedContractKey = keyof typeof DEPLOYED_CONTRACTS;

/** One of our contracts at its CREATE2 address. */
export type PlannedContract = Readonly<{
  key: DeployedContractKey;
  artifact: BuildArtifact;
  constructorArguments: readonly unknown[];
  initCode: Hex;
  address: Address;
}>;

/** A chain read that says whether a step's effect is already there (so a rerun skips it). */
type DoneCheck = (client: PublicClient) => Promise<boolean>;

/**
 * One transaction of the deploy: sent by the deployer (`call`) or, for the deterministic deployer's own
 * keyless deployment, broadcast as it is (`raw`). `gasWithoutState` is the gas figure the plan shows
 * when the chain cannot estimate the step yet (a contract it calls is not deployed yet).
 */
export type DeployStep = Readonly<{
  label: string;
  roles: string;
  target: Address;
  done: DoneCheck;
  gasWithoutState: bigint;
}> &
  ({ kind: "call"; to: Address; data: Hex; value: bigint } | { kind: "raw"; serialized: Hex; gas: bigint; gasPrice: bigint });

export type DeployPlan = Readonly<{
  chain: ChainFile;
  deployer: Address;
  admin: Address | undefined;
  pausers: readonly Address[];
  contracts: readonly PlannedContract[];
  steps: readonly DeployStep[];
}>;

export type DeployPlanOptions = Readonly<{
  deployer: Address;
  /** The administrator the registry is handed to in two steps (a multisig, say); the deployer stays admin when absent. */
  admin?: Address | undefined;
  /** Accounts that may pause features (they cannot do anything else). */
  pausers?: readonly Address[];
  artifactsDir?: string;
}>;

const hasCode = (address: Address): DoneCheck => async (client) => {
  const code = await client.getCode({ address });
  return code !== undefined && code !== "0x";
};

/** Gas of a CREATE2 deployment before it can be estimated: intrinsic + calldata + code deposit, with room for the constructor. */
function deploymentGas(artifact: BuildArtifact, calldata: Hex): bigint {
  const bytes = Buffer.from(calldata.slice(2), "hex");
  const calldataGas = bytes.reduce((sum, byte) => sum + (byte === 0 ? 4n : 16n), 0n);
  const runtimeBytes = BigInt((artifact.deployedBytecode.length - 2) / 2);
  return 21_000n + 32_000n + calldataGas + 200n * runtimeBytes + 100_000n;
}

/** Registry writes before the registry exists, from their measured cost on the stand-in chain, rounded up. */
const REGISTRY_WRITE_GAS = { stage: 60_000n, activate: 110_000n, setPauser: 50_000n, proposeAdmin: 50_000n } as const;

/** Every address the plan needs from the chain file, which `checkChainFile` has made sure are known. */
function known(address: Address | null, field: string): Address {
  if (address === null) throw new Error(`the chain file's ${field} is unknown (null): fill it in before deploying`);
  return address;
}

/**
 * The deploy of our contracts to the chain `chain` describes: each contract at its CREATE2 address
 * through the deterministic deployer (placed first when the chain lacks it), the routers registered for
 * features 2 and 3, the pausers set, and the administrator proposed. Every step carries the chain read
 * that tells whether it is done, which is what makes the deploy idempotent and resumable.
 */
export async function planDeploy(client: PublicClient, chain: ChainFile, options: DeployPlanOptions): Promise<DeployPlan> {
  const { deployer } = options;
  const admin = options.admin !== undefined && getAddress(options.admin) !== getAddress(deployer) ? getAddress(options.admin) : undefined;
  const pausers = [...new Set((options.pausers ?? []).map((pauser) => getAddress(pauser)))];
  const steps: DeployStep[] = [];

  if ((await deterministicDeployerState(client)) === "absent") {
    steps.push({
      label: "fund the deterministic deployer's signer",
      roles: `${DETERMINISTIC_DEPLOYER_SIGNER} pays its keyless deployment`,
      target: DETERMINISTIC_DEPLOYER_SIGNER,
      kind: "call",
      to: DETERMINISTIC_DEPLOYER_SIGNER,
      data: "0x",
      value: DETERMINISTIC_DEPLOYER_FUNDING,
      gasWithoutState: 21_000n,
      done: async (reader) =>
        (await deterministicDeployerState(reader)) !== "absent" || (await reader.getBalance({ address: DETERMINISTIC_DEPLOYER_SIGNER })) >= DETERMINISTIC_DEPLOYER_FUNDING,
    });
    steps.push({
      label: "deploy the deterministic deployer",
      roles: "CREATE2 factory (no owner)",
      target: DETERMINISTIC_DEPLOYER,
      kind: "raw",
      serialized: DETERMINISTIC_DEPLOYER_TRANSACTION,
      gas: DETERMINISTIC_DEPLOYER_GAS,
      gasPrice: DETERMINISTIC_DEPLOYER_GAS_PRICE,
      gasWithoutState: DETERMINISTIC_DEPLOYER_GAS,
      done: async (reader) => (await deterministicDeployerState(reader)) === "present",
    });
  }

  const contracts: PlannedContract[] = [];
  const place = (key: DeployedContractKey, constructorArguments: readonly unknown[], roles: string): Address => {
    const artifact = readBuildArtifact(DEPLOYED_CONTRACTS[key], options.artifactsDir);
    const initCode = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: constructorArguments } as Parameters<typeof encodeDeployData>[0]);
    const address = create2Address(initCode, DEPLOY_SALT);
    contracts.push({ key, artifact, constructorArguments, initCode, address });
    const data = create2Calldata(initCode, DEPLOY_SALT);
    steps.push({ label: `deploy ${artifact.contractName}`, roles, target: address, kind: "call", to: DETERMINISTIC_DEPLOYER, data, value: 0n, gasWithoutState: deploymentGas(artifact, data), done: hasCode(address) });
    return address;
  };

  const permit2 = known(chain.permit2.address, "permit2.address");
  const weth = known(chain.wrappedNative.address, "wrappedNative.address");
  const v2 = chain.venues.find((venue) => venue.type === "uniswap-v2")!;
  const v2Venue = { factory: known(v2.factory.address, "uniswap-v2 factory"), pairInitCodeHash: v2.poolInitCodeHash, feeBps: v2.feeTiers[0]!.fee / 100 };
  // The venue byte of SWAP_V3 is the index in this list: the chain file's order of its V3 venues.
  const v3Venues = chain.venues.flatMap((venue) => (venue.type === "uniswap-v3" ? [{ factory: known(venue.factory.address, `${venue.name} factory`), poolInitCodeHash: venue.poolInitCodeHash }] : []));

  // SWAP_V4's PoolManager, when the chain file names one (zero: routers without the V4 venue).
  const poolManager = chain.uniswapV4PoolManager === undefined ? zeroAddress : known(chain.uniswapV4PoolManager.address, "uniswapV4PoolManager.address");

  const registry = place("routerRegistry", [deployer], `administrator ${deployer} (the deployer)${admin ? `, proposed to hand over to ${admin}` : ""}`);
  const allowanceHolder = place("allowanceHolder", [], "none (stateless between calls)");
  const propAmmAllowlist = place("propAmmAllowlist", [registry], "managed by the registry's administrator; empty");
  const takerSwapRouter = place("takerSwapRouter", [permit2, allowanceHolder, weth, registry, v2Venue, v3Venues, propAmmAllowlist, poolManager], "feature 2 router (taker-submitted swaps)");
  const gaslessSwapRouter = place("gaslessSwapRouter", [permit2, weth, registry, v2Venue, v3Venues, propAmmAllowlist, poolManager], "feature 3 router (gasless swaps)");

  const registryWrite = (label: string, roles: string, data: Hex, gasWithoutState: bigint, done: DoneCheck): DeployStep => ({
    label,
    roles,
    target: registry,
    kind: "call",
    to: registry,
    data,
    value: 0n,
    gasWithoutState,
    // Nothing of a registry write is on chain before the registry is.
    done: async (reader) => (await hasCode(registry)(reader)) && done(reader),
  });
  const feature = async (reader: PublicClient, featureId: bigint) => {
    const [, current, next] = await reader.readContract({ address: registry, abi: routerRegistryAbi, functionName: "getFeature", args: [featureId] });
    return { current: getAddress(current), next: getAddress(next) };
  };
  for (const [featureId, router] of [
    [Feature.TakerSubmittedSwap, takerSwapRouter],
    [Feature.GaslessSwap, gaslessSwapRouter],
  ] as const) {
    steps.push(
      registryWrite(`stage feature ${featureId}`, `router ${router}`, encodeFunctionData({ abi: routerRegistryAbi, functionName: "stage", args: [featureId, router] }), REGISTRY_WRITE_GAS.stage, async (reader) => {
        const state = await feature(reader, featureId);
        return state.current === router || state.next === router;
      }),
      registryWrite(`activate feature ${featureId}`, `router ${router} becomes current`, encodeFunctionData({ abi: routerRegistryAbi, functionName: "activate", args: [featureId] }), REGISTRY_WRITE_GAS.activate, async (reader) => (await feature(reader, featureId)).current === router),
    );
  }
  for (const pauser of pausers) {
    steps.push(
      registryWrite(`set pauser`, `pauser ${pauser}`, encodeFunctionData({ abi: routerRegistryAbi, functionName: "setPauser", args: [pauser, true] }), REGISTRY_WRITE_GAS.setPauser, (reader) =>
        reader.readContract({ address: registry, abi: routerRegistryAbi, functionName: "isPauser", args: [pauser] }),
      ),
    );
  }
  if (admin !== undefined) {
    steps.push(
      registryWrite("propose administrator", `${admin} must call acceptAdmin()`, encodeFunctionData({ abi: routerRegistryAbi, functionName: "proposeAdmin", args: [admin] }), REGISTRY_WRITE_GAS.proposeAdmin, async (reader) => {
        const [current, pending] = await Promise.all([
          reader.readContract({ address: registry, abi: routerRegistryAbi, functionName: "admin" }),
          reader.readContract({ address: registry, abi: routerRegistryAbi, functionName: "pendingAdmin" }),
        ]);
        return getAddress(current) === admin || getAddress(pending) === admin;
      }),
    );
  }
  return { chain, deployer: getAddress(deployer), admin, pausers, contracts, steps };
}

/** The planned address of `key`. */
export function plannedAddress(plan: DeployPlan, key: DeployedContractKey): Address {
  return plan.contracts.find((contract) => contract.key === key)?.address ?? zeroAddress;
}
