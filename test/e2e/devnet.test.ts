import { expect } from "chai";
import hre from "hardhat";
import { createServer, type AddressInfo } from "node:net";
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, maxUint256 } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetChain, onboardIntegrator, patchSignature, type ManifestToken } from "../../sdk";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readManifest, writeManifest } from "../../sdk/chain/manifest";
import { deployDevnet } from "../../scripts/deploy/deployDevnet";
import { DEV_POOLS } from "../../scripts/deploy/devnetMarket";
import { DEV_V3_POOLS } from "../../scripts/deploy/devnetV3Market";
import { DEVNET_V3_VENUES } from "../../scripts/deploy/devnetV3Venues";
import { spawnDevnet } from "../../scripts/devnet/spawnDevnet";
import { runScript } from "../fixtures/runScript";
import { scaledTimeout, withinSteps } from "../fixtures/testTimeouts";

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

/** Development account #2's well-known key; it holds token grants on the devnet. */
const TRADER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";

async function tradeThroughTheApi(rpcUrl: string, apiUrl: string, tokens: readonly ManifestToken[]): Promise<void> {
  const trader = privateKeyToAccount(TRADER_KEY);
  const onboarded = await onboardIntegrator({
    baseUrl: apiUrl,
    account: privateKeyToAccount(generatePrivateKey()),
    application: { chain_id: 4663, display_name: "E2E", slug: "e2e-devnet", requested_max_fee_bps: 30 },
    keyLabel: "e2e",
  });
  const snapshot = (await (await fetch(`${apiUrl}/tokens/supported-tokens?chain_id=4663`)).json()) as { addresses: string[] };
  const usdc = tokens.find((token) => token.symbol === "USDC")!.address;
  const weth = tokens.find((token) => token.symbol === "WETH")!.address;
  expect(snapshot.addresses).to.include.members([usdc.toLowerCase(), weth.toLowerCase()]);
  const response = await fetch(`${apiUrl}/quote?sell_token=${usdc}&buy_token=${weth}&sell_amount=1000000000&taker=${trader.address}&fee_bps=10`, {
    headers: { authorization: `Bearer ${onboarded.apiKey!.secret}` },
  });
  const quote = (await response.json()) as Record<string, any>;
  expect(response.status, JSON.stringify(quote)).to.equal(200);

  const wallet = createWalletClient({ account: trader, chain: devnetChain, transport: http(rpcUrl) });
  const client = createPublicClient({ chain: devnetChain, transport: http(rpcUrl) });
  if (quote.issues.allowance) {
    await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [quote.issues.allowance.spender, maxUint256] }) });
  }
  const signature = await trader.signTypedData(quote.permit2);
  const hash = await wallet.sendTransaction({ to: quote.tx.to, data: patchSignature(quote.tx.data, quote.tx.signature_offset, signature), value: BigInt(quote.tx.value) });
  const receipt = await client.waitForTransactionReceipt({ hash });
  expect(receipt.status).to.equal("success");
  expect(getAddress(receipt.to!)).to.equal(getAddress(quote.tx.to));
}

/** Development account #3's well-known key: the gasless trader, who never pays gas for the swap. */
const GASLESS_TRADER_KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";

/** The README's gasless steps against the running devnet: quote with permit2_owner, sign, submit, follow. */
async function gaslessTradeThroughTheApi(rpcUrl: string, apiUrl: string): Promise<void> {
  const trader = privateKeyToAccount(GASLESS_TRADER_KEY);
  const onboarded = await onboardIntegrator({
    baseUrl: apiUrl,
    account: privateKeyToAccount(generatePrivateKey()),
    application: { chain_id: 4663, display_name: "E2E gasless", slug: "e2e-gasless", requested_max_fee_bps: 0 },
    keyLabel: "e2e",
  });
  const headers = { authorization: `Bearer ${onboarded.apiKey!.secret}`, "content-type": "application/json" };
  const response = await fetch(`${apiUrl}/quote?sell_token=USDC&buy_token=WETH&sell_amount=250000000&taker=${trader.address}&permit2_owner=${trader.address}`, { headers });
  const quote = (await response.json()) as Record<string, any>;
  expect(response.status, JSON.stringify(quote)).to.equal(200);
  const client = createPublicClient({ chain: devnetChain, transport: http(rpcUrl) });
  if (quote.issues.allowance) {
    const wallet = createWalletClient({ account: trader, chain: devnetChain, transport: http(rpcUrl) });
    await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: quote.sell_token, abi: erc20Abi, functionName: "approve", args: [quote.issues.allowance.spender, maxUint256] }) });
  }
  const ethBefore = await client.getBalance({ address: trader.address });
  const { EIP712Domain: _domain, ...types } = quote.permit2.types;
  const signature = await trader.signTypedData({ ...quote.permit2, types });
  const submitted = await fetch(`${apiUrl}/gasless/submit`, { method: "POST", headers, body: JSON.stringify({ quote_id: quote.quote_id, signature }) });
  const relay = (await submitted.json()) as { relay_id: string; status: string; tx_hash: string | null };
  expect(submitted.status, JSON.stringify(relay)).to.equal(202);
  let status = relay;
  for (const until = Date.now() + 30_000; ["accepted", "submitted"].includes(status.status) && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await (await fetch(`${apiUrl}/gasless/status/${relay.relay_id}`, { headers })).json()) as typeof relay;
  }
  expect(status.status, JSON.stringify(status)).to.equal("confirmed");
  expect((await client.getTransactionReceipt({ hash: status.tx_hash as `0x${string}` })).status).to.equal("success");
  expect(await client.getBalance({ address: trader.address })).to.equal(ethBefore);
}

describe("devnet (npm start)", function () {
  this.timeout(scaledTimeout(180_000));
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "devnet-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("serves chain 0x1237 over JSON-RPC, writes the manifest, and stops cleanly on Ctrl-C", async () => {
    const devnet = await spawnDevnet(
      { DEVNET_PORT: "0", DEPLOYMENTS_DIR: directory, API_PORT: "0", API_DB_PATH: join(directory, "api.sqlite"), RELAYER_PORT: "0", RELAYER_DB_PATH: join(directory, "relayer.sqlite") },
      { readyWithinMs: scaledTimeout(90_000) },
    );
    const { rpcUrl: url, apiUrl } = devnet;
    try {
      await withinSteps(85_000, devnet.output, async (step) => {
        step("chain and manifest");
        expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(await rpc(url, "eth_chainId")).to.equal("0x1237");

        const manifest = readManifest(join(directory, "4663.json"));
        expect(manifest.chainId).to.equal(4663);
        expect(await rpc(url, "eth_getCode", [manifest.contracts.routerRegistry, "latest"])).to.not.equal("0x");
        const block = (await rpc(url, "eth_getBlockByNumber", [`0x${manifest.deployBlock.toString(16)}`, false])) as { hash: string };
        expect(block.hash).to.equal(manifest.deployBlockHash);

        // Both routers are registered: ownerOf(2) and ownerOf(3) by raw selector.
        const ownerOf = async (feature: number) =>
          getAddress(`0x${((await rpc(url, "eth_call", [{ to: manifest.contracts.routerRegistry, data: `0x6352211e${feature.toString(16).padStart(64, "0")}` }, "latest"])) as string).slice(-40)}`);
        expect(await ownerOf(2)).to.equal(manifest.contracts.takerSwapRouter);
        expect(await ownerOf(3)).to.equal(manifest.contracts.gaslessSwapRouter);

        step("migrate-router");
        // npm run migrate-router -- 2 against the running devnet: a new current router, the old one as prev.
        const migration = await runScript("scripts/migrateRouter.ts", ["2"], { RPC_URL: url, DEPLOYMENTS_DIR: directory });
        expect(migration.status, migration.stderr).to.equal(0);
        expect(migration.stdout).to.match(/Feature 2 migrated to 0x[0-9a-fA-F]{40}/);
        const migrated = await ownerOf(2);
        expect(migrated).to.not.equal(manifest.contracts.takerSwapRouter);
        const previous = (await rpc(url, "eth_call", [{ to: manifest.contracts.routerRegistry, data: `0xe2603dc2${"0".repeat(63)}2` }, "latest"])) as string;
        expect(getAddress(`0x${previous.slice(-40)}`)).to.equal(manifest.contracts.takerSwapRouter);

        // Ports once: one line to paste into a second terminal, with what this run resolved (port 0 here).
        const { port: rpcPort } = new URL(url);
        const { port: apiPort } = new URL(apiUrl);
        expect(devnet.output()).to.contain(
          `  export RPC_URL=${url} SWAP_API_URL=${apiUrl} CHAIN_ID=4663 DEPLOYMENTS_DIR=${directory} DEVNET_HOST=127.0.0.1 DEVNET_PORT=${rpcPort} API_HOST=127.0.0.1 API_PORT=${apiPort} RELAYER_URL=http://127.0.0.1:`,
        );
        // npm start turns AUTO_APPROVE on (the API's own default is off) and says so: onboarding below is active at once.
        expect(devnet.output()).to.match(/Onboarding\s+AUTO_APPROVE=true \(devnet\): applications are active at once/);
        // A wallet against the running devnet: onboard, snapshot, quote, approve, sign, patch, send.
        step("taker-submitted trade");
        await tradeThroughTheApi(url, apiUrl, manifest.tokens);
        // And gasless, through the relayer npm start runs as its own process.
        step("gasless trade");
        await gaslessTradeThroughTheApi(url, apiUrl);

        step("Ctrl-C");
        expect(await devnet.stop()).to.equal(0);
        let refused = false;
        await rpc(url, "eth_chainId").catch(() => (refused = true));
        expect(refused, "the RPC port must be closed after Ctrl-C").to.equal(true);
      });
    } finally {
      if (devnet.child.exitCode === null) devnet.child.kill("SIGKILL");
    }
  });

  it("says which port is busy and which variable changes it when the RPC port is taken, without a stack", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const busy = (holder.address() as AddressInfo).port;
    try {
      const failure = await spawnDevnet({ DEVNET_PORT: String(busy), DEPLOYMENTS_DIR: directory, API_PORT: "0", API_DB_PATH: join(directory, "api.sqlite"), RELAYER_PORT: "0" }).then(
        async (devnet) => {
          await devnet.stop();
          throw new Error("the devnet started on a busy port");
        },
        (error: Error) => error.message,
      );
      expect(failure).to.match(/exited early with 1/);
      expect(failure).to.include(`port ${busy} on 127.0.0.1 is already in use`).and.include("DEVNET_PORT");
      expect(failure).to.not.match(/EADDRINUSE|\n\s+at /);
    } finally {
      holder.close();
    }
  });

  it("names the relayer's busy port and RELAYER_PORT the same way, without a stack", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const busy = (holder.address() as AddressInfo).port;
    try {
      const failure = await spawnDevnet({ DEVNET_PORT: "0", DEPLOYMENTS_DIR: directory, API_PORT: "0", API_DB_PATH: join(directory, "api.sqlite"), RELAYER_PORT: String(busy) }).then(
        async (devnet) => {
          await devnet.stop();
          throw new Error("the devnet started with the relayer on a busy port");
        },
        (error: Error) => error.message,
      );
      expect(failure).to.include(`the relayer's port ${busy} on 127.0.0.1 is already in use`).and.include("RELAYER_PORT");
      expect(failure).to.not.match(/EADDRINUSE|\n\s+at /);
    } finally {
      holder.close();
    }
  });

  it("deploys once per chain run: a second deploy against the same chain reuses the manifest", async () => {
    const file = join(directory, "4663.json");
    const first = await deployDevnet(hre, file);
    const second = await deployDevnet(hre, file);
    expect(first.reused).to.equal(false);
    expect(second.reused).to.equal(true);
    expect(second.manifest).to.deep.equal(first.manifest);
  });

  it("writes the venues and every venue's pools: the V2 pairs (TAXD's last) and both V3 venues' pools, readable back through the schema", async () => {
    const file = join(directory, "4663.json");
    const { manifest } = await deployDevnet(hre, file);
    expect(readManifest(file)).to.deep.equal(manifest);
    expect(manifest.venues.map((venue) => venue.name)).to.deep.equal(["uniswap-v2", ...DEVNET_V3_VENUES.map((venue) => venue.name)]);
    const taxd = manifest.tokens.find((token) => token.symbol === "TAXD")!.address;
    const v2 = manifest.pools.filter((pool) => pool.type === "uniswap-v2");
    expect(v2).to.have.length(DEV_POOLS.length + 1);
    expect([v2.at(-1)!.token0, v2.at(-1)!.token1]).to.include(taxd);
    const v3 = manifest.pools.filter((pool) => pool.type === "uniswap-v3");
    expect(v3.map((pool) => `${pool.source}:${pool.fee}`)).to.deep.equal(DEV_V3_POOLS.map((pool) => `${pool.venue}:${pool.fee}`));
    for (const pool of v3) expect(await hre.network.provider.request({ method: "eth_getCode", params: [pool.address, "latest"] }), pool.address).to.not.equal("0x");
  });

  it("deploys over a manifest that is unreadable or from an older layout", async () => {
    const file = join(directory, "4663.json");
    writeFileSync(file, JSON.stringify({ chainId: 4663, deployBlock: 1, contracts: { routerRegistry: "0x5fbdb2315678afecb367f032d93f642f64180aa3" } }));
    const result = await deployDevnet(hre, file);
    expect(result.reused).to.equal(false);
    expect(readManifest(file)).to.deep.equal(result.manifest);
  });

  it("deploys again when the manifest belongs to another chain run", async () => {
    const file = join(directory, "4663.json");
    const first = await deployDevnet(hre, file);
    // A restarted chain has other block hashes at the same heights.
    writeManifest(file, { ...first.manifest, deployBlockHash: `0x${"ab".repeat(32)}` });
    const second = await deployDevnet(hre, file);
    expect(second.reused).to.equal(false);
    expect(second.manifest.contracts.routerRegistry).to.not.equal(first.manifest.contracts.routerRegistry);
    expect(readManifest(file)).to.deep.equal(second.manifest);
  });
});
