import { expect } from "chai";
import hre from "hardhat";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, parseEther, parseUnits, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createTradingClient, devnetChain, readManifest, uniswapV3PoolAbi, type DeploymentManifest } from "../../sdk";
import { providerClients, type HardhatClients } from "../../scripts/deploy/hardhatClients";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { createV3Pool, mintV3Position, sqrtPriceX96Of, UNISWAP_V3_DEFAULT_FEE_TIERS, type V3Deployment } from "../../scripts/deploy/uniswapV3";
import { sortTokens } from "../../sdk/amm/v3/poolAddress";
import { deployBytecode, writeAndWait } from "../../scripts/deploy/writeAndWait";
import { freePort } from "../../scripts/devnet/freePort";
import { spawnDevnet, type SpawnedDevnet } from "../../scripts/devnet/spawnDevnet";
import { STANDIN_CHAIN_FILE, startStandInChain, type StandInChain } from "../../scripts/standin/standInChain";
import { devnetEnvIn, stopSpawnedDevnet } from "../fixtures/devnetInFolder";
import { scaledTimeout } from "../fixtures/testTimeouts";

/** Development account #4's well-known key: a taker the fork grants tokens to. Never a real key. */
const TAKER_KEY: Hex = "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a";
const TAKER = privateKeyToAccount(TAKER_KEY).address;

/** Development account #5's well-known key: the gasless taker (granted tokens on the fork). */
const GASLESS_TAKER_KEY: Hex = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";

type Hop = { source: string; pool: string };

/**
 * The stand-in's own market, made on the stand-in before the fork (as a live chain's pools exist before
 * anyone forks it): a 6-decimal dollar token (DevToken) with a V2 pair and a V3 0.3 % pool against the
 * stand-in's WETH, seeded by account #11 (an account the devnet gives no role).
 */
async function standInMarket(chain: StandInChain): Promise<{ dollar: Address; v2Pair: Address; v3Pool: Address }> {
  const clients: HardhatClients = await providerClients(chain.provider);
  const maker = clients.walletClients[11]!;
  const devToken = await hre.artifacts.readArtifact("DevToken");
  const dollar = await deployBytecode(clients, maker, { abi: devToken.abi, bytecode: devToken.bytecode as Hex }, ["Stand-in Dollar", "SUSD", 6, maker.account.address]);
  const weth = chain.chainFile.wrappedNative.address!;
  await writeAndWait(clients, maker, { address: dollar, abi: devToken.abi, functionName: "mint", args: [maker.account.address, parseUnits("1000000", 6)] });
  await writeAndWait(clients, maker, { address: weth, abi: uniswapArtifacts.weth9().abi, functionName: "deposit", value: parseEther("200") });

  const v2 = chain.chainFile.venues.find((venue) => venue.type === "uniswap-v2")!;
  const factory = uniswapArtifacts.factory();
  await writeAndWait(clients, maker, { address: v2.factory.address!, abi: factory.abi, functionName: "createPair", args: [dollar, weth] });
  const v2Pair = getAddress((await clients.publicClient.readContract({ address: v2.factory.address!, abi: factory.abi, functionName: "getPair", args: [dollar, weth] })) as Address);
  await writeAndWait(clients, maker, { address: weth, abi: erc20Abi, functionName: "transfer", args: [v2Pair, parseEther("100")] });
  await writeAndWait(clients, maker, { address: dollar, abi: erc20Abi, functionName: "transfer", args: [v2Pair, parseUnits("300000", 6)] });
  await writeAndWait(clients, maker, { address: v2Pair, abi: uniswapArtifacts.pair().abi, functionName: "mint", args: [maker.account.address] });

  const v3Venue = chain.chainFile.venues.find((venue) => venue.type === "uniswap-v3")!;
  if (v3Venue.type !== "uniswap-v3") throw new Error("the stand-in chain file lists no uniswap-v3 venue");
  const v3: V3Deployment = { factory: v3Venue.factory.address!, positionManager: v3Venue.positionManager.address!, quoterV2: v3Venue.quoter.address!, poolInitCodeHash: v3Venue.poolInitCodeHash, feeTiers: UNISWAP_V3_DEFAULT_FEE_TIERS };
  const [amountDollar, amountWeth] = [parseUnits("150000", 6), parseEther("50")];
  const [token0] = sortTokens(dollar, weth);
  const sqrtPriceX96 = token0 === getAddress(dollar) ? sqrtPriceX96Of(amountWeth, amountDollar) : sqrtPriceX96Of(amountDollar, amountWeth);
  const v3Pool = getAddress(await createV3Pool(clients, maker, v3, dollar, weth, 3000, sqrtPriceX96));
  await mintV3Position(clients, maker, v3, { tokenA: dollar, tokenB: weth, fee: 3000, tickLower: -887220, tickUpper: 887220, amountA: amountDollar, amountB: amountWeth });
  return { dollar: getAddress(dollar), v2Pair, v3Pool };
}

describe("FORK_URL: npm start as a fork of the stand-in live chain", function () {
  this.timeout(scaledTimeout(900_000));
  let chain: StandInChain;
  let standIn: PublicClient;
  let market: Awaited<ReturnType<typeof standInMarket>>;
  let devnet: SpawnedDevnet;
  let directory: string;
  let manifest: DeploymentManifest;
  let forkBlock: bigint;

  /** What the original chain holds that the fork's trades would change, were they to reach it. */
  const originalState = async () => ({
    block: await standIn.getBlockNumber(),
    takerNonce: await standIn.getTransactionCount({ address: TAKER }),
    takerDollar: await standIn.readContract({ address: market.dollar, abi: erc20Abi, functionName: "balanceOf", args: [TAKER] }),
    takerWeth: await standIn.readContract({ address: chain.chainFile.wrappedNative.address!, abi: erc20Abi, functionName: "balanceOf", args: [TAKER] }),
    v2Reserves: await standIn.readContract({ address: market.v2Pair, abi: uniswapArtifacts.pair().abi, functionName: "getReserves" }),
    v3Slot0: await standIn.readContract({ address: market.v3Pool, abi: uniswapV3PoolAbi, functionName: "slot0" }),
    permit2Code: await standIn.getCode({ address: manifest.contracts.permit2 }),
    registryCode: await standIn.getCode({ address: manifest.contracts.routerRegistry }),
  });

  before(async function () {
    chain = await startStandInChain();
    standIn = createPublicClient({ transport: http(chain.rpcUrl, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
    market = await standInMarket(chain);
    forkBlock = await standIn.getBlockNumber();
    directory = mkdtempSync(join(tmpdir(), "fork-devnet-"));
    // The stand-in's chain file beside the shipped 4663 file (same id, addresses the stand-in lacks): the fork must pick the stand-in's by its addresses.
    const chainsDir = join(directory, "chains");
    mkdirSync(chainsDir);
    copyFileSync(STANDIN_CHAIN_FILE, join(chainsDir, "standin.json"));
    copyFileSync(join(hre.config.paths.root, "chains", "4663.json"), join(chainsDir, "4663.json"));
    devnet = await spawnDevnet({ ...devnetEnvIn(directory), FORK_URL: chain.rpcUrl, CHAINS_DIR: chainsDir, FORK_LOG_RANGE: "4" });
    manifest = readManifest(join(directory, "4663.json"));
  });
  after(async function () {
    this.timeout(scaledTimeout(60_000));
    await stopSpawnedDevnet(devnet);
    await chain?.stop();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  it("says in its banner that it is a fork, of which chain file and URL, at which block", () => {
    expect(devnet.output()).to.include(`a fork of standin (Stand-in live chain (Anvil, tests only)) at ${chain.rpcUrl}, block ${forkBlock}`);
    expect(devnet.output()).to.match(/Fork pools\s+2 \(uniswap-v2 1, uniswap-v3 1\)/);
    expect(devnet.output()).to.match(/SUSD\s+0x[0-9a-fA-F]{40}\s+6 decimals\s+\(1,000,000 per account, written to balances slot \d+ \(solidity layout\)\)/);
  });

  it("writes a manifest of the fork: the chain's canonical Permit2, WETH and venues, its pools found from the factories' events, and our contracts", async () => {
    const chainFile = chain.chainFile;
    expect(manifest.contracts.permit2).to.equal(chainFile.permit2.address);
    expect(manifest.contracts.weth).to.equal(chainFile.wrappedNative.address);
    expect(manifest.contracts.uniswapV2Factory).to.equal(chainFile.venues[0]!.factory.address);
    expect(manifest.venues.map((venue) => venue.factory)).to.deep.equal(chainFile.venues.map((venue) => venue.factory.address));
    expect(manifest.pools.map((pool) => [pool.type, pool.address])).to.have.deep.members([
      ["uniswap-v2", market.v2Pair],
      ["uniswap-v3", market.v3Pool],
    ]);
    expect(manifest.tokens.map((token) => token.symbol)).to.have.members(["WETH", "SUSD"]);
    const fork = createPublicClient({ chain: devnetChain, transport: http(devnet.rpcUrl) });
    expect(manifest.deployBlock > Number(forkBlock)).to.equal(true);
    for (const address of [manifest.contracts.routerRegistry, manifest.contracts.takerSwapRouter, manifest.contracts.gaslessSwapRouter, manifest.contracts.allowanceHolder]) {
      expect(await fork.getCode({ address }), address).to.not.equal(undefined);
      expect(await standIn.getCode({ address }), `${address} on the original`).to.equal(undefined);
    }
  });

  /** An integrator onboarded on the fork's API (AUTO_APPROVE on the devnet), with a client over the fork. */
  async function onboardedClient(slug: string) {
    const onboarding = createTradingClient({ apiUrl: devnet.apiUrl });
    const owner = createWalletClient({ account: privateKeyToAccount(generatePrivateKey()), chain: devnetChain, transport: http(devnet.rpcUrl) });
    const { apiKey } = await onboarding.onboard(owner, { chainId: 4663, displayName: "Fork Tests", slug, requestedMaxFeeBps: 100 });
    onboarding.close();
    const fork = createPublicClient({ chain: devnetChain, transport: http(devnet.rpcUrl) });
    const client = createTradingClient({ apiUrl: devnet.apiUrl, apiKey: apiKey!.api_key, publicClient: fork, contracts: { routerRegistry: manifest.contracts.routerRegistry, allowanceHolder: manifest.contracts.allowanceHolder } });
    return { client, fork };
  }

  it("quotes over the stand-in's pools and settles a Permit2 swap on the fork, leaving the original chain as it was", async () => {
    const before = await originalState();
    const { client, fork } = await onboardedClient("fork-permit2");
    const taker = createWalletClient({ account: privateKeyToAccount(TAKER_KEY), chain: devnetChain, transport: http(devnet.rpcUrl) });
    const weth = manifest.contracts.weth;
    const wethBefore = await fork.readContract({ address: weth, abi: erc20Abi, functionName: "balanceOf", args: [TAKER] });
    const quote = await client.getQuote({ sellToken: market.dollar, buyToken: weth, sellAmount: parseUnits("2000", 6), taker: TAKER });
    expect(quote.settlement).to.equal("permit2");
    const hops = quote.route.hops as Hop[];
    expect(hops.length).to.be.greaterThan(0);
    for (const hop of hops) expect([market.v2Pair, market.v3Pool].map((pool) => pool.toLowerCase())).to.include(hop.pool.toLowerCase());
    const result = await client.executeQuote(quote, taker);
    expect(result.receipt.status).to.equal("success");
    const received = (await fork.readContract({ address: weth, abi: erc20Abi, functionName: "balanceOf", args: [TAKER] })) - wethBefore;
    expect(received >= BigInt(quote.min_buy_amount)).to.equal(true);
    client.close();
    expect(await originalState()).to.deep.equal(before);
  });

  it("relays a gasless swap on the fork (the relayer signs on the fork), leaving the original chain as it was", async () => {
    const before = await originalState();
    const { client, fork } = await onboardedClient("fork-gasless");
    const taker = createWalletClient({ account: privateKeyToAccount(GASLESS_TAKER_KEY), chain: devnetChain, transport: http(devnet.rpcUrl) });
    const weth = manifest.contracts.weth;
    const wethBefore = await fork.readContract({ address: weth, abi: erc20Abi, functionName: "balanceOf", args: [taker.account.address] });
    const nonceBefore = await fork.getTransactionCount({ address: taker.account.address });
    const quote = await client.getQuote({ sellToken: market.dollar, buyToken: weth, sellAmount: parseUnits("1000", 6), taker: taker.account.address, gasless: true });
    for (const hop of quote.route.hops as Hop[]) expect([market.v2Pair, market.v3Pool].map((pool) => pool.toLowerCase())).to.include(hop.pool.toLowerCase());
    const relay = await client.swapGasless(quote, taker, { intervalMs: 200, timeoutMs: scaledTimeout(60_000) });
    expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
    expect(await fork.getTransactionCount({ address: taker.account.address }), "the taker sent nothing").to.equal(nonceBefore);
    const received = (await fork.readContract({ address: weth, abi: erc20Abi, functionName: "balanceOf", args: [taker.account.address] })) - wethBefore;
    expect(received >= BigInt(quote.min_buy_amount)).to.equal(true);
    client.close();
    expect(await originalState()).to.deep.equal(before);
  });
});

describe("FORK_URL refusals: npm start stops before deploying anything, saying what to change", function () {
  this.timeout(scaledTimeout(300_000));

  it("refuses a FORK_URL nothing answers at, naming the variable, and writes no manifest", async () => {
    const directory = mkdtempSync(join(tmpdir(), "fork-refused-"));
    try {
      // A port that was free a moment ago: nothing listens there.
      const url = `http://127.0.0.1:${await freePort()}`;
      const failure = await spawnDevnet({ FORK_URL: url, DEVNET_PORT: "0", API_PORT: "0", RELAYER_PORT: "0", DEPLOYMENTS_DIR: directory, API_LOG_LEVEL: "silent", RELAYER_LOG_LEVEL: "silent" }).then(
        () => new Error("the devnet started"),
        (error: unknown) => error as Error,
      );
      expect(failure.message).to.include(`devnet: cannot reach the chain at FORK_URL=${url}`);
      expect(failure.message).to.include("check FORK_URL");
      expect(existsSync(join(directory, "4663.json"))).to.equal(false);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
