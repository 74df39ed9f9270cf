/**
 * Devnet helpers for trying the token features by hand, against the chain at RPC_URL (default: the
 * devnet's own) and its manifest in DEPLOYMENTS_DIR. Transactions come from the node's first account,
 * the devnet's deployer, which owns the test tokens.
 *
 *   npm run devnet-tools -- deploy-token <SYMBOL> [--decimals N] [--pair-with SYMBOL] [--depth AMOUNT] [--token-depth AMOUNT]
 *       a new token (default 18 decimals), with a Uniswap V2 pool against a manifest token holding
 *       --depth whole units of it (default 10) and --token-depth of the new token (default 1000);
 *       --pair-with none deploys it without a pool
 *   npm run devnet-tools -- fund <account> <TOKEN> <AMOUNT>
 *       mints a manifest token (by symbol or address) to the account; ETH is sent, WETH wrapped
 *   npm run devnet-tools -- propamm-price <pair> <PRICE> [--spread-bps N]
 *       sets a DevPropAmm's price (whole token1 per whole token0, e.g. 3000 USDC per WETH) and, when
 *       given, its spread; the node's first account is its operator on the devnet
 */
import { parseArgs } from "node:util";
import { getAddress, isAddress } from "viem";
import { connectToChain, loadChainTarget } from "./chainConnection";

const USAGE = [
  "usage: npm run devnet-tools -- <command>",
  "  deploy-token <SYMBOL> [--decimals N] [--pair-with WETH|USDC|…|none] [--depth AMOUNT] [--token-depth AMOUNT]",
  "  fund <account> <TOKEN> <AMOUNT>     TOKEN: ETH, or a manifest token's symbol or address",
  "  propamm-price <pair> <PRICE> [--spread-bps N]     PRICE: whole token1 per whole token0 (npm run venues -- list shows the tokens)",
].join("\n");

const AMOUNT = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/;

function fail(problem: string): never {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const { positionals, values } = (() => {
    try {
      return parseArgs({
        args: process.argv.slice(2),
        options: {
          decimals: { type: "string" },
          "pair-with": { type: "string" },
          depth: { type: "string" },
          "token-depth": { type: "string" },
          "spread-bps": { type: "string" },
        },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
  })();
  const [command, ...rest] = positionals;
  if (command === "deploy-token" && rest.length === 1) {
    const symbol = rest[0]!;
    if (!/^[A-Za-z0-9]{1,11}$/.test(symbol)) fail("SYMBOL must be 1-11 letters or digits");
    const decimals = values.decimals === undefined ? 18 : Number(values.decimals);
    if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) fail("--decimals must be an integer from 0 to 36");
    for (const [name, value] of [["--depth", values.depth], ["--token-depth", values["token-depth"]]] as const) {
      if (value !== undefined && !AMOUNT.test(value)) fail(`${name} must be a decimal amount such as 10 or 0.5`);
    }
  } else if (command === "fund" && rest.length === 3) {
    if (!isAddress(rest[0]!, { strict: false })) fail(`${rest[0]} is not an account address (0x + 40 hex digits)`);
    if (!AMOUNT.test(rest[2]!)) fail("AMOUNT must be a decimal amount such as 100 or 0.5");
  } else if (command === "propamm-price" && rest.length === 2) {
    if (!isAddress(rest[0]!, { strict: false })) fail(`${rest[0]} is not a propAMM address (0x + 40 hex digits)`);
    if (!AMOUNT.test(rest[1]!) || /^0(\.0*)?$/.test(rest[1]!)) fail("PRICE must be a positive decimal such as 3000 or 0.25 (whole token1 per whole token0)");
    const spread = values["spread-bps"];
    if (spread !== undefined && (!/^[0-9]{1,4}$/.test(spread) || Number(spread) > 1000)) fail("--spread-bps must be a whole number of bps from 0 to 1000");
  } else {
    fail(command === undefined ? "no command" : `bad usage of ${command}`);
  }

  // Check the chain and its manifest before Hardhat loads, so a failure names the URL it tried.
  const target = loadChainTarget();
  const chain = await connectToChain(target);
  const { manifest, rpcUrl } = chain;
  if (command === "propamm-price") {
    const { setPropAmmPrice } = await import("./devnet/propAmmPrice");
    process.exitCode = await setPropAmmPrice(chain, getAddress(rest[0]!.toLowerCase()), rest[1]!, values["spread-bps"] === undefined ? undefined : Number(values["spread-bps"]), (line) => process.stdout.write(`${line}\n`));
    return;
  }
  process.env.HARDHAT_NETWORK = "devnet";
  process.env.RPC_URL = rpcUrl;
  const { default: hre } = await import("hardhat");
  const { hardhatClients } = await import("./deploy/hardhatClients");
  const { deployTestToken, fundAccount } = await import("./deploy/deployTestToken");
  const clients = await hardhatClients(hre);
  const [deployer] = clients.walletClients;
  if (deployer === undefined) throw new Error(`the node at ${rpcUrl} has no unlocked account to send from`);

  if (command === "deploy-token") {
    const pairWith = values["pair-with"] ?? "WETH";
    const token = await deployTestToken(hre, clients, deployer, manifest, {
      symbol: rest[0]!,
      decimals: values.decimals === undefined ? undefined : Number(values.decimals),
      pairWith: pairWith.toLowerCase() === "none" ? undefined : { symbol: pairWith, amount: values.depth ?? "10" },
      tokenAmount: values["token-depth"],
    });
    const lines = [
      `deployed ${token.symbol} (${token.decimals} decimals) at ${token.address}`,
      token.pair === undefined ? "  no pool" : `  pool ${token.pair} with ${values.depth ?? "10"} ${pairWith} and ${values["token-depth"] ?? "1000"} ${token.symbol}`,
      `  try: npm run tokens -- enable ${token.address}   (or ask for quotes of it from PROMOTION_MIN_INTEGRATORS integrators)`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } else {
    const account = getAddress(rest[0]!.toLowerCase());
    const funded = await fundAccount(hre, clients, deployer, manifest, { account, token: rest[1]!, amount: rest[2]! });
    process.stdout.write(`funded ${account} with ${rest[2]} ${funded.symbol} (${funded.units} base units)\n`);
  }
}

main().catch((error: unknown) => {
  console.error("devnet-tools:", error instanceof Error ? error.message : error);
  process.exit(1);
});
