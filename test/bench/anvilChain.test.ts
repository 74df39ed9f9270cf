import { expect } from "chai";
import hre from "hardhat";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, maxUint256, parseEther, parseEventLogs, parseUnits, toHex, type Hex, type TypedDataDefinition } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetChain, gaslessSwapRouterAbi, onboardIntegrator, type RelayJson } from "../../sdk";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import { loadRelayerConfig } from "../../relayer/config";
import { startRelayer } from "../../relayer/startRelayer";
import { freePort } from "../../scripts/devnet/freePort";
import { startAnvilChain, type AnvilChain } from "../../scripts/bench/anvilChain";
import { parseStageHistograms } from "../../scripts/bench/stageHistogram";
import { RELAY_STAGES } from "../../relayer/queue/relayStageTimings";
import { SUBMIT_STAGES } from "../../api/metrics/gaslessSubmitStages";

const TOKEN = "anvil-bench-relayer-secret-0123456789";
const mintAbi = [{ type: "function", name: "mint", stateMutability: "nonpayable", inputs: [{ name: "to", type: "address" }, { name: "amount", type: "uint256" }], outputs: [] }] as const;

describe("the relayer bench's Anvil chain, and the stage timings it reads", function () {
  this.timeout(180_000);
  let directory: string;
  let anvil: AnvilChain | undefined;
  const closers: (() => Promise<unknown>)[] = [];

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "bench-anvil-"));
    anvil = await startAnvilChain(hre, directory);
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
    await anvil?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("runs Anvil (from the npm package) as chain 4663 with the devnet's contracts; a gasless relay submitted through the API confirms on it, timed in every stage", async () => {
    const chain = { ...devnetChain, rpcUrls: { default: { http: [anvil!.rpcUrl] } } };
    const client = createPublicClient({ chain, transport: http(anvil!.rpcUrl, { retryCount: 0 }) });
    expect(await client.getChainId()).to.equal(4663);
    expect((await client.request({ method: "web3_clientVersion" })).toLowerCase()).to.include("anvil");
    const { manifest } = anvil!;
    for (const address of [manifest.contracts.routerRegistry, manifest.contracts.gaslessSwapRouter, manifest.contracts.permit2]) {
      expect(await client.getCode({ address }), address).to.not.equal(undefined);
    }

    // The relayer and the API, as the bench runs them, against Anvil over JSON-RPC.
    const signer = generatePrivateKey();
    await client.request({ method: "hardhat_setBalance" as "eth_chainId", params: [privateKeyToAccount(signer).address, toHex(parseEther("10"))] as never });
    const relayerPort = await freePort();
    const relayer = await startRelayer(
      loadRelayerConfig({
        RELAYER_PRIVATE_KEYS: signer,
        RELAYER_INTERNAL_TOKEN: TOKEN,
        RELAYER_HOST: "127.0.0.1",
        RELAYER_PORT: String(relayerPort),
        RELAYER_DB_PATH: join(directory, "relayer.sqlite"),
        RELAYER_LOG_LEVEL: "silent",
        RELAYER_POLL_MS: "50",
        RELAYER_METRICS_PORT: "0",
        RPC_URL: anvil!.rpcUrl,
        CHAIN_ID: "4663",
        DEPLOYMENTS_DIR: directory,
      }),
      pino({ level: "silent" }),
    );
    closers.push(() => relayer.close());
    const api = await startApi(
      loadApiConfig({
        API_PORT: "0",
        METRICS_PORT: "0",
        API_DB_PATH: join(directory, "api.sqlite"),
        API_LOG_LEVEL: "silent",
        AUTO_APPROVE: "true",
        CHAIN_ID: "4663",
        RPC_URL: anvil!.rpcUrl,
        DEPLOYMENTS_DIR: directory,
        RELAYER_URL: relayer.url,
        RELAYER_INTERNAL_TOKEN: TOKEN,
        RELAYER_FEE_RECIPIENT: privateKeyToAccount(generatePrivateKey()).address,
      }),
      pino({ level: "silent" }),
    );
    closers.push(() => api.close());
    const owner = privateKeyToAccount(generatePrivateKey());
    const onboarded = await onboardIntegrator({
      baseUrl: api.url,
      account: owner,
      application: { chain_id: 4663, display_name: "Anvil Bench", slug: `anvil-${owner.address.slice(2, 10).toLowerCase()}`, requested_max_fee_bps: 50 },
      keyLabel: "bench",
    });
    const auth = { authorization: `Bearer ${onboarded.apiKey!.secret}` };

    // A taker with USDC (minted by the deployer, one of Anvil's unlocked accounts) and Permit2 approved.
    const taker = privateKeyToAccount(generatePrivateKey());
    const usdc = manifest.tokens.find((token) => token.symbol === "USDC")!.address;
    await client.request({ method: "hardhat_setBalance" as "eth_chainId", params: [taker.address, toHex(parseEther("1"))] as never });
    const mint = (await client.request({
      method: "eth_sendTransaction" as "eth_chainId",
      params: [{ from: anvil!.deployer, to: usdc, data: encodeFunctionData({ abi: mintAbi, functionName: "mint", args: [taker.address, parseUnits("1000", 6)] }) }] as never,
    })) as Hex;
    expect((await client.waitForTransactionReceipt({ hash: mint })).status).to.equal("success");
    const wallet = createWalletClient({ account: taker, chain, transport: http(anvil!.rpcUrl) });
    const approve = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [manifest.contracts.permit2, maxUint256] });
    expect((await client.waitForTransactionReceipt({ hash: approve })).status).to.equal("success");

    const query = new URLSearchParams({ chain_id: "4663", sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("10", 6).toString(), taker: taker.address, permit2_owner: taker.address });
    const quoteResponse = await fetch(`${api.url}/quote?${query}`, { headers: auth });
    const quote = (await quoteResponse.json()) as { quote_id: string; permit2: TypedDataDefinition & { types: Record<string, unknown> } };
    expect(quoteResponse.status, JSON.stringify(quote)).to.equal(200);
    const { EIP712Domain: _domain, ...types } = quote.permit2.types;
    const signature = await taker.signTypedData({ ...quote.permit2, types } as TypedDataDefinition);
    const submitted = await fetch(`${api.url}/gasless/submit`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ quote_id: quote.quote_id, signature }) });
    const accepted = (await submitted.json()) as RelayJson;
    expect(submitted.status, JSON.stringify(accepted)).to.equal(202);

    let relay = accepted;
    const until = Date.now() + 60_000;
    while (relay.status !== "confirmed" && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      relay = (await (await fetch(`${api.url}/gasless/status/${accepted.relay_id}`, { headers: auth })).json()) as RelayJson;
      expect(["accepted", "submitted", "confirmed"], JSON.stringify(relay)).to.include(relay.status);
    }
    expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
    const receipt = await client.getTransactionReceipt({ hash: relay.tx_hash! });
    expect(receipt.status).to.equal("success");
    expect(receipt.from.toLowerCase()).to.equal(privateKeyToAccount(signer).address.toLowerCase());
    const settled = parseEventLogs({ abi: gaslessSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
    expect(settled).to.have.length(1);

    // Where its time went: one observation per stage, on the API's and the relayer's GET /metrics.
    const apiStages = parseStageHistograms(await (await fetch(`${api.metricsUrl!}/metrics`)).text(), "api_gasless_submit_stage_seconds");
    const relayerStages = parseStageHistograms(await (await fetch(`${relayer.metricsUrl!}/metrics`)).text(), "relayer_relay_stage_seconds");
    // A new submission is never matched against the relayer's relays (only one that fails a check is).
    expect(Object.fromEntries(SUBMIT_STAGES.map((stage) => [stage, apiStages[stage]?.count ?? 0]))).to.deep.equal(Object.fromEntries(SUBMIT_STAGES.map((stage) => [stage, stage === "match" ? 0 : 1])));
    expect(Object.fromEntries(RELAY_STAGES.map((stage) => [stage, relayerStages[stage]?.count]))).to.deep.equal(Object.fromEntries(RELAY_STAGES.map((stage) => [stage, 1])));
  });
});
