import { subtask } from "hardhat/config";
import type { HardhatUserConfig } from "hardhat/config";
import {
  TASK_COMPILE_GET_REMAPPINGS,
  TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD,
  TASK_COMPILE_SOLIDITY_LOG_COMPILATION_ERRORS,
} from "hardhat/builtin-tasks/task-names";
import "@nomicfoundation/hardhat-viem";
import "solidity-coverage";

import { DEVNET_CHAIN_ID, devnetRpcUrl } from "./sdk/chain/devnet";

/**
 * Compilers come from npm packages (soljson.js), never from the internet.
 * Each entry maps a configured solc version to the package that ships it.
 */
const SOLC_PACKAGES: Readonly<Record<string, string>> = {
  "0.8.28": "solc",
  "0.8.17": "solc-0.8.17",
};

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args: { solcVersion: string }) => {
  const pkg = SOLC_PACKAGES[args.solcVersion];
  if (pkg === undefined) {
    throw new Error(
      `solc ${args.solcVersion} is not vendored; add an npm alias for it to package.json and SOLC_PACKAGES in hardhat.config.ts`,
    );
  }
  // Hardhat does not check that the soljson matches the configured version, so we do.
  const solc = require(pkg) as { version(): string };
  const longVersion = solc.version();
  if (!longVersion.startsWith(`${args.solcVersion}+`)) {
    throw new Error(`package ${pkg} ships solc ${longVersion}, expected ${args.solcVersion}`);
  }
  return {
    compilerPath: require.resolve(`${pkg}/soljson.js`),
    isSolcJs: true,
    version: args.solcVersion,
    longVersion,
  };
});

// Permit2 imports `solmate/src/...`; use the copy bundled with it, not the npm `solmate` package.
subtask(TASK_COMPILE_GET_REMAPPINGS).setAction(async (_args, _hre, runSuper) => {
  const inherited = (await runSuper()) as Record<string, string>;
  return { ...inherited, "solmate/": "@uniswap/v4-periphery/lib/permit2/lib/solmate/" };
});

/**
 * Compiler warnings we reviewed and accept, by solc error code and file. 2394 warns that transient
 * storage outlives the call frame; AllowanceHolder clears its slot before `exec` returns, which is
 * the use the warning allows. Any other warning is still printed.
 */
const REVIEWED_WARNINGS: readonly { errorCode: string; file: string }[] = [
  { errorCode: "2394", file: "contracts/allowance/AllowanceHolder.sol" },
  // The routers' lock and the V3 hop's pool slot are cleared before their calls return, too.
  { errorCode: "2394", file: "contracts/routers/RegistryGate.sol" },
  { errorCode: "2394", file: "contracts/routers/venues/UniswapV3Hops.sol" },
  // The exact-output input's slots are cleared when the route run backwards ends (`end`).
  { errorCode: "2394", file: "contracts/libraries/ExactOutputInput.sol" },
];

type SolcMessage = { severity: string; errorCode?: string; sourceLocation?: { file?: string } };

subtask(TASK_COMPILE_SOLIDITY_LOG_COMPILATION_ERRORS).setAction(async (args: { output?: { errors?: SolcMessage[] }; quiet: boolean }, _hre, runSuper) => {
  const reviewed = (message: SolcMessage) =>
    message.severity === "warning" && REVIEWED_WARNINGS.some((known) => known.errorCode === message.errorCode && known.file === message.sourceLocation?.file);
  const errors = args.output?.errors?.filter((message) => !reviewed(message));
  return runSuper({ ...args, output: args.output === undefined ? undefined : { ...args.output, errors } });
});

/**
 * Optimizer runs of the contracts that would otherwise come within 1,024 bytes of the 24,576-byte
 * limit (test/contracts/contractSizes.test.ts): the gasless batch routers carry every feature-3 entry
 * point plus both venues. Fewer runs trade a little gas per call for code size. Measured for
 * GaslessBatchSwapRouterV2 (V2 + V3 modules): 26,826 bytes at 1,000,000 runs (over the limit), 23,202 at
 * 5,000, 21,845 at 1,000, 20,374 at 200; 200 leaves room for the propAMM module. With the Uniswap V4
 * module (its body in UniswapV4Module, reached by DELEGATECALL; the router keeps the dispatch and the
 * callback): 23,783 at 200 runs, over the 23,552 the size test allows; 23,546 at 1, hence 1.
 */
const SIZE_BOUND_RUNS = 1;
const sizeBound = { version: "0.8.28", settings: { evmVersion: "cancun", viaIR: true, optimizer: { enabled: true, runs: SIZE_BOUND_RUNS } } };

/**
 * Optimizer runs of the feature-2 routers with exact output over V3 (routes run backwards): measured for
 * TakerSwapRouterV3, 24,747 bytes at 1,000,000 runs and 24,713 at 50,000 (both within 1,024 of the
 * limit), 22,308 at 10,000. Fewer runs keep the headroom at a small gas cost per call: about +0.6 % on
 * the taker rows of `bench:gas` (the 1-hop allowance row 107,394 against 106,750 at 1,000,000 runs).
 * With the Uniswap V4 module: 24,387 bytes at 10,000 runs (over), 21,909 at 1,000, hence 1,000.
 */
const TAKER_BOUND_RUNS = 1_000;
const takerBound = { version: "0.8.28", settings: { evmVersion: "cancun", viaIR: true, optimizer: { enabled: true, runs: TAKER_BOUND_RUNS } } };

const config: HardhatUserConfig = {
  solidity: {
    overrides: {
      "contracts/routers/GaslessBatchSwapRouter.sol": sizeBound,
      "contracts/routers/GaslessBatchSwapRouterV2.sol": sizeBound,
      "contracts/routers/TakerSwapRouterV2.sol": takerBound,
      "contracts/routers/TakerSwapRouterV3.sol": takerBound,
    },
    compilers: [
      {
        version: "0.8.28",
        settings: {
          evmVersion: "cancun",
          viaIR: true,
          optimizer: { enabled: true, runs: 1_000_000 },
        },
      },
      {
        // Permit2 pins 0.8.17 and needs viaIR; these are Uniswap's own release settings.
        version: "0.8.17",
        settings: {
          viaIR: true,
          optimizer: { enabled: true, runs: 1_000_000 },
          metadata: { bytecodeHash: "none" },
        },
      },
    ],
  },
  networks: {
    hardhat: {
      chainId: DEVNET_CHAIN_ID,
      hardfork: "cancun",
      // 1,000,000 ETH per development account: seeding the devnet's WETH pools takes a few thousand.
      accounts: { accountsBalance: "1000000000000000000000000" },
      // Fork mode (FORK_URL, scripts/fork/forkChain.ts): calls at the fork block and before it run with
      // the forked chain's rules, which Hardhat knows only for chains listed here.
      chains: { [DEVNET_CHAIN_ID]: { hardforkHistory: { cancun: 0 } } },
    },
    // The running devnet (`npm start`), for scripts such as migrate-router: RPC_URL, by default the
    // devnet's own DEVNET_HOST and DEVNET_PORT.
    devnet: {
      url: devnetRpcUrl(process.env),
      chainId: DEVNET_CHAIN_ID,
    },
  },
  mocha: {
    timeout: 120_000,
  },
  // solidity-coverage (`npm run coverage`, which sets SOLIDITY_COVERAGE) compiles instrumented
  // contracts; they get their own folders so the real artifacts are never replaced by them.
  ...(process.env.SOLIDITY_COVERAGE === "true" ? { paths: { artifacts: "coverage-artifacts", cache: "coverage-cache" } } : {}),
};

export default config;
