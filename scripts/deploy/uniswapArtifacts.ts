import type { Abi, Hex } from "viem";

/** An npm package's build artifact: its ABI and creation bytecode. */
export type NpmArtifact = { abi: Abi; bytecode: Hex };

/** An artifact from an npm package's build; Uniswap's ship bytecode without the 0x prefix, which is added. */
export function loadNpmArtifact(path: string): NpmArtifact {
  const artifact = require(path) as { abi: Abi; bytecode: string };
  const bytecode = (artifact.bytecode.startsWith("0x") ? artifact.bytecode : `0x${artifact.bytecode}`) as Hex;
  return { abi: artifact.abi, bytecode };
}

/** Uniswap V2 and WETH9, deployed from their published npm builds rather than rebuilt. */
export const uniswapArtifacts = {
  factory: () => loadNpmArtifact("@uniswap/v2-core/build/UniswapV2Factory.json"),
  pair: () => loadNpmArtifact("@uniswap/v2-core/build/UniswapV2Pair.json"),
  weth9: () => loadNpmArtifact("@uniswap/v2-periphery/build/WETH9.json"),
  router02: () => loadNpmArtifact("@uniswap/v2-periphery/build/UniswapV2Router02.json"),
  universalRouter: () => loadNpmArtifact("@uniswap/universal-router/artifacts/contracts/UniversalRouter.sol/UniversalRouter.json"),
};

/** keccak256 of the UniswapV2Pair creation code: the init-code hash Router02 has built in. */
export { UNISWAP_V2_PAIR_INIT_CODE_HASH } from "../../sdk/chain/manifest";
