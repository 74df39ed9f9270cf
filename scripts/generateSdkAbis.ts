/**
 * `npm run abis`: regenerates the SDK's ABI modules from the compiled interfaces. Tests fail when the
 * SDK and the contracts drift apart; this is how to bring them back together.
 */
import hre from "hardhat";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const SDK_ABIS: readonly { contract: string; constant: string; file: string; doc: string }[] = [
  { contract: "IRouterRegistry", constant: "routerRegistryAbi", file: "routerRegistryAbi.ts", doc: "ABI of IRouterRegistry (contracts/interfaces/IRouterRegistry.sol)." },
  { contract: "ITakerSwapRouter", constant: "takerSwapRouterAbi", file: "takerSwapRouterAbi.ts", doc: "ABI of ITakerSwapRouter (feature 2, contracts/interfaces/ITakerSwapRouter.sol)." },
  { contract: "IGaslessSwapRouter", constant: "gaslessSwapRouterAbi", file: "gaslessSwapRouterAbi.ts", doc: "ABI of IGaslessSwapRouter (feature 3, contracts/interfaces/IGaslessSwapRouter.sol)." },
  {
    contract: "IGaslessBatchSwapRouter",
    constant: "gaslessBatchSwapRouterAbi",
    file: "gaslessBatchSwapRouterAbi.ts",
    doc: "ABI of IGaslessBatchSwapRouter (feature 3 with batches, contracts/interfaces/IGaslessBatchSwapRouter.sol).",
  },
  {
    contract: "ITakerExactOutputRouter",
    constant: "takerExactOutputRouterAbi",
    file: "takerExactOutputRouterAbi.ts",
    doc: "ABI of ITakerExactOutputRouter (feature 2 with exact-output swaps, contracts/interfaces/ITakerExactOutputRouter.sol).",
  },
  {
    contract: "IGaslessExactOutputRouter",
    constant: "gaslessExactOutputRouterAbi",
    file: "gaslessExactOutputRouterAbi.ts",
    doc: "ABI of IGaslessExactOutputRouter (feature 3's exact-output swaps, contracts/interfaces/IGaslessExactOutputRouter.sol).",
  },
  { contract: "IAllowanceHolder", constant: "allowanceHolderAbi", file: "allowanceHolderAbi.ts", doc: "ABI of IAllowanceHolder (contracts/interfaces/IAllowanceHolder.sol)." },
];

async function main(): Promise<void> {
  await hre.run("compile", { quiet: true });
  for (const { contract, constant, file, doc } of SDK_ABIS) {
    const { abi } = await hre.artifacts.readArtifact(contract);
    const source = `/** ${doc} A test keeps it equal to the compiled artifact. */\nexport const ${constant} = ${JSON.stringify(abi, null, 2)} as const;\n`;
    writeFileSync(join(hre.config.paths.root, "sdk", "abis", file), source);
    process.stdout.write(`sdk/abis/${file}\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
