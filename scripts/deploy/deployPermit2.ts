import type { HardhatRuntimeEnvironment } from "hardhat/types";
import type { Hex } from "viem";
import { PERMIT2_ADDRESS } from "../../sdk/chain/permit2";
import type { HardhatClients } from "./hardhatClients";

/**
 * Places Uniswap's Permit2 at its canonical address. Its immutable cached chain id is then zero, so
 * Permit2 recomputes the domain separator for (this chain, this address) on every use, which is
 * exactly right; off-the-shelf Permit2 tooling then works against the devnet unchanged.
 */
export async function deployPermit2(hre: HardhatRuntimeEnvironment, clients: HardhatClients) {
  const artifact = await hre.artifacts.readArtifact("@uniswap/v4-periphery/lib/permit2/src/Permit2.sol:Permit2");
  const existing = await clients.publicClient.getCode({ address: PERMIT2_ADDRESS });
  if (existing === undefined || existing === "0x") {
    await clients.testClient.setCode({ address: PERMIT2_ADDRESS, bytecode: artifact.deployedBytecode as Hex });
  }
  return PERMIT2_ADDRESS;
}
