import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createTradingClient, devnetChain, permit2Abi, readManifest, type DeploymentManifest } from "../../sdk";
import { spawnDevnet, type SpawnedDevnet } from "../../scripts/devnet/spawnDevnet";
import { devnetEnvIn, stopSpawnedDevnet } from "../fixtures/devnetInFolder";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";
import { scaledTimeout } from "../fixtures/testTimeouts";

/** Development account #6: granted tokens on the original devnet and, by the fork's storage writes, on the fork. */
const TAKER_KEY = DEV_KEYS[6];
const TAKER = privateKeyToAccount(TAKER_KEY).address;

/**
 * `FORK_URL` at a running devnet (issue 31): the shared `npm start` devnet is the original, and a second
 * `npm start` child process, on other ports and another DEPLOYMENTS_DIR, forks it. The fork picks the
 * `devnet` chain file by its addresses, deploys our contracts by the CREATE2 plan, finds the original's
 * pools from its factories' events, quotes over them and settles a Permit2 swap; the original is untouched.
 */
describe("FORK_URL at a running devnet: a second npm start forks the first", function () {
  this.timeout(scaledTimeout(900_000));
  let original: SharedDevnet;
  let originalClient: PublicClient;
  let fork: SpawnedDevnet;
  let forkClient: PublicClient;
  let directory: string;
  let manifest: DeploymentManifest;
  let forkBlock: bigint;

  before(async function () {
    original = await sharedDevnet();
    originalClient = createPublicClient({ chain: devnetChain, transport: http(original.rpcUrl) }) as PublicClient;
    forkBlock = await originalClient.getBlockNumber();
    directory = mkdtempSync(join(tmpdir(), "fork-of-devnet-"));
    fork = await spawnDevnet({ ...devnetEnvIn(directory), FORK_URL: original.rpcUrl });
    manifest = readManifest(join(directory, "4663.json"));
    forkClient = createPublicClient({ chain: devnetChain, transport: http(fork.rpcUrl) }) as PublicClient;
  });
  after(async function () {
    this.timeout(scaledTimeout(60_000));
    await stopSpawnedDevnet(fork);
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  it("runs on its own ports and says it is a fork of the devnet chain file at the original's URL and head", () => {
    expect(fork.rpcUrl).to.not.equal(original.rpcUrl);
    expect(fork.apiUrl).to.not.equal(original.apiUrl);
    expect(fork.output()).to.include(`a fork of devnet (Token Swap Devnet (npm start)) at ${original.rpcUrl}, block ${forkBlock}`);
    expect(fork.output()).to.match(/Fork pools\s+\d+ \(uniswap-v2 [1-9]\d*, uniswap-v3 [1-9]\d*, forkswap-v3 \d+\)/);
  });

  it("uses the original's Permit2, WETH and factories, and deploys its own contracts that the original does not have", async () => {
    expect(manifest.contracts.permit2).to.equal(original.manifest.contracts.permit2);
    expect(manifest.contracts.weth).to.equal(original.manifest.contracts.weth);
    expect(manifest.contracts.uniswapV2Factory).to.equal(original.manifest.contracts.uniswapV2Factory);
    // The original's V2 pairs are the fork's pools (found from PairCreated on the original).
    const originalV2 = original.manifest.pools.filter((pool) => pool.type === "uniswap-v2").map((pool) => pool.address);
    expect(manifest.pools.filter((pool) => pool.type === "uniswap-v2").map((pool) => pool.address)).to.include.members(originalV2);
    for (const name of ["routerRegistry", "takerSwapRouter", "gaslessSwapRouter", "allowanceHolder"] as const) {
      const address = manifest.contracts[name];
      expect(address, name).to.not.equal(original.manifest.contracts[name]);
      expect(await forkClient.getCode({ address }), `${name} on the fork`).to.not.equal(undefined);
      expect(await originalClient.getCode({ address }), `${name} on the original`).to.equal(undefined);
    }
  });

  it("quotes over the original's pools and settles a Permit2 swap on the fork, leaving the original's block, balances, pools and Permit2 nonces as they were", async () => {
    const usdc = original.token("USDC");
    const weth = manifest.contracts.weth;
    const onboarding = createTradingClient({ apiUrl: fork.apiUrl });
    const owner = createWalletClient({ account: privateKeyToAccount(generatePrivateKey()), chain: devnetChain, transport: http(fork.rpcUrl) });
    const { apiKey } = await onboarding.onboard(owner, { chainId: 4663, displayName: "Fork Of Devnet", slug: "fork-of-devnet", requestedMaxFeeBps: 100 });
    onboarding.close();
    const client = createTradingClient({
      apiUrl: fork.apiUrl,
      apiKey: apiKey!.api_key,
      publicClient: forkClient,
      contracts: { routerRegistry: manifest.contracts.routerRegistry, allowanceHolder: manifest.contracts.allowanceHolder, permit2: manifest.contracts.permit2 },
    });
    const quote = await client.getQuote({ sellToken: usdc, buyToken: weth, sellAmount: parseUnits("2500", 6), taker: TAKER });
    expect(quote.settlement).to.equal("permit2");
    const knownPools = new Set(original.manifest.pools.map((pool) => pool.address.toLowerCase()));
    expect(quote.route.hops.length).to.be.greaterThan(0);
    for (const hop of quote.route.hops) expect(knownPools.has(hop.pool.toLowerCase()), `${hop.pool} is one of the original's pools`).to.equal(true);

    const state = async (client: PublicClient) => ({
      block: await client.getBlockNumber(),
      nonce: await client.getTransactionCount({ address: TAKER }),
      balances: await Promise.all([usdc, weth].map((token) => client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [TAKER] }))),
      pools: await Promise.all(quote.route.hops.flatMap((hop) => [hop.token_in, hop.token_out].map((token) => client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [hop.pool as Address] })))),
      permit2Approval: await client.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [TAKER, manifest.contracts.permit2] }),
      nonceWord: await client.readContract({ address: manifest.contracts.permit2, abi: permit2Abi, functionName: "nonceBitmap", args: [TAKER, BigInt(quote.permit2!.message.nonce) >> 8n] }),
    });
    const originalBefore = await state(originalClient);
    const forkBefore = await state(forkClient);

    const taker = createWalletClient({ account: privateKeyToAccount(TAKER_KEY), chain: devnetChain, transport: http(fork.rpcUrl) });
    const result = await client.executeQuote(quote, taker);
    client.close();
    expect(result.receipt.status).to.equal("success");

    const forkAfter = await state(forkClient);
    const [[usdcBefore, wethBefore], [usdcAfter, wethAfter]] = [forkBefore.balances as [bigint, bigint], forkAfter.balances as [bigint, bigint]];
    expect(usdcAfter).to.equal(usdcBefore - BigInt(quote.sell_amount));
    expect(wethAfter - wethBefore >= BigInt(quote.min_buy_amount)).to.equal(true);
    expect(forkAfter.nonceWord).to.not.equal(forkBefore.nonceWord);
    expect(await state(originalClient)).to.deep.equal(originalBefore);
  });
});
