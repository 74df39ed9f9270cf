import { bytesToHex, encodeDeployData, getAddress, hexToBytes, keccak256, type Abi, type Address, type Hex } from "viem";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { deployBytecode } from "./writeAndWait";

type FoundryArtifact = { abi: Abi; bytecode: { object: Hex } };

/** Foundry's build output keeps creation code under `bytecode.object`, 0x-prefixed. */
function load(path: string): { abi: Abi; bytecode: Hex } {
  const artifact = require(`@uniswap/v4-periphery/foundry-out/${path}`) as FoundryArtifact;
  return { abi: artifact.abi, bytecode: artifact.bytecode.object };
}

/**
 * Uniswap V4's contracts from the Foundry build output that `@uniswap/v4-periphery` ships (solc
 * 0.8.26, Cancun, Uniswap's release settings), deployed unchanged: nothing of theirs is compiled
 * here. `PoolModifyLiquidityTest` and `PoolSwapTest` are v4-core's test routers, which add liquidity
 * and swap through `unlock` from an EOA: the devnet seeds its pools and moves prices with them.
 */
export const uniswapV4Artifacts = {
  poolManager: () => load("PoolManager.sol/PoolManager.default.json"),
  v4Quoter: () => load("V4Quoter.sol/V4Quoter.json"),
  stateView: () => load("StateView.sol/StateView.json"),
  modifyLiquidityRouter: () => load("PoolModifyLiquidityTest.sol/PoolModifyLiquidityTest.default.json"),
  swapRouter: () => load("PoolSwapTest.sol/PoolSwapTest.default.json"),
};

/** Uniswap V4 on a chain: the singleton PoolManager, its lenses, and the test routers that seed it. */
export type V4Deployment = Readonly<{
  poolManager: Address;
  v4Quoter: Address;
  stateView: Address;
  modifyLiquidityRouter: Address;
  swapRouter: Address;
}>;

/** Deploys the PoolManager (owned by `deployer`, no protocol fee set), V4Quoter, StateView and the two test routers. */
export async function deployUniswapV4(clients: HardhatClients, deployer: DevWalletClient): Promise<V4Deployment> {
  const poolManager = getAddress(await deployBytecode(clients, deployer, uniswapV4Artifacts.poolManager(), [deployer.account.address]));
  const v4Quoter = getAddress(await deployBytecode(clients, deployer, uniswapV4Artifacts.v4Quoter(), [poolManager]));
  const stateView = getAddress(await deployBytecode(clients, deployer, uniswapV4Artifacts.stateView(), [poolManager]));
  const modifyLiquidityRouter = getAddress(await deployBytecode(clients, deployer, uniswapV4Artifacts.modifyLiquidityRouter(), [poolManager]));
  const swapRouter = getAddress(await deployBytecode(clients, deployer, uniswapV4Artifacts.swapRouter(), [poolManager]));
  return { poolManager, v4Quoter, stateView, modifyLiquidityRouter, swapRouter };
}

/** A CREATE2 salt and the address it gives. */
export type MinedSalt = Readonly<{ salt: Hex; address: Address }>;

/** Salts tried before giving up: a 14-bit pattern takes 16,384 tries on average, so this fails only for a broken input. */
const MAX_SALT_TRIES = 2_000_000;

/**
 * The first salt (counting from 0) at which CREATE2 from `deployer` of code hashing to
 * `initCodeHash` lands on an address whose low 14 bits are exactly `flags`: a V4 hook's permissions
 * are its address's bits, so the hook must be placed where they say what it implements. Hashes in
 * place (one buffer, the salt's low bytes rewritten) because it takes ~16,000 tries per hook.
 */
export function mineHookSalt(deployer: Address, initCodeHash: Hex, flags: number): MinedSalt {
  const preimage = new Uint8Array(85);
  preimage[0] = 0xff;
  preimage.set(hexToBytes(deployer), 1);
  preimage.set(hexToBytes(initCodeHash), 53);
  for (let counter = 0; counter < MAX_SALT_TRIES; counter++) {
    preimage[49] = (counter >>> 24) & 0xff;
    preimage[50] = (counter >>> 16) & 0xff;
    preimage[51] = (counter >>> 8) & 0xff;
    preimage[52] = counter & 0xff;
    const hash = keccak256(preimage, "bytes");
    // The address is the hash's last 20 bytes: its low 14 bits are the last byte and 6 bits of the one before.
    if ((((hash[30]! << 8) | hash[31]!) & 0x3fff) === flags) {
      return { salt: bytesToHex(preimage.slice(21, 53)), address: getAddress(bytesToHex(hash.slice(12))) };
    }
  }
  throw new Error(`no CREATE2 salt under ${MAX_SALT_TRIES} gives an address with hook flags 0x${flags.toString(16)}`);
}

/** The creation code of `artifact` with its constructor arguments, and its hash. */
export function initCodeOf(artifact: { abi: Abi; bytecode: Hex }, args: readonly unknown[]): { initCode: Hex; initCodeHash: Hex } {
  const initCode = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args } as Parameters<typeof encodeDeployData>[0]);
  return { initCode, initCodeHash: keccak256(initCode) };
}
