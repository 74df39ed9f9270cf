import { expect } from "chai";
import hre from "hardhat";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { concatHex, createPublicClient, encodeErrorResult, http, numberToHex, parseAbiItem, serializeErc6492Signature, size, type Address, type Hex, type LocalAccount } from "viem";
import { applicationPayloadHash, devnetChain, OnboardingAction } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { hardhatClients } from "../../scripts/deploy/hardhatClients";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import { applicationFields, newWallet, requestNonce, signChallenge, startOnboardingApi, type NonceResponse, type OnboardingApi } from "../fixtures/onboardingApi";

/**
 * Audit finding M-1: an onboarding signature must not let its sender run code of its choice on the
 * node at the node's own gas cap. The API here verifies through a real HTTP JSON-RPC proxy in front
 * of the Hardhat chain, which records every call it forwards.
 */
describe("onboarding signatures: what a check may cost the chain node (M-1)", () => {
  let chain: ChainServer;
  let proxy: RpcProxy;
  let api: OnboardingApi;

  const start = async (overrides: Parameters<typeof startOnboardingApi>[0] = {}) => {
    const verifier = createPublicClient({ chain: devnetChain, transport: http(proxy.url, { retryCount: 0 }) });
    api = await startOnboardingApi(overrides, [], undefined, undefined, verifier);
  };
  beforeEach(async () => {
    chain = await startChainServer(hre, "127.0.0.1", 0);
    proxy = await startRpcProxy(chain.url);
  });
  afterEach(async () => {
    await api?.close();
    await proxy.close();
    await chain.close();
  });

  async function deploy(name: "OwnerCheckingWallet" | "GasBurningWallet", owner?: Address): Promise<Address> {
    const { publicClient, walletClients } = await hardhatClients(hre);
    const client = { client: { public: publicClient, wallet: walletClients[0]! } };
    const contract = name === "OwnerCheckingWallet" ? await hre.viem.deployContract(name, [owner!], client) : await hre.viem.deployContract(name, [], client);
    return contract.address;
  }

  /** An application of `wallet` (a key or a contract), its nonce, and the request body without a signature. */
  async function applicationOf(wallet: Address, slug: string) {
    const fields = { ...applicationFields(newWallet()), owner_wallet: wallet, fee_recipient: wallet, slug };
    const payload_hash = applicationPayloadHash(fields);
    const challenge = await requestNonce(api, { wallet, action: OnboardingAction.CreateApplication, payload_hash, chain_id: 4663 });
    const { message: _message, ...echoed } = challenge;
    return { challenge, body: { ...fields, payload_hash, ...echoed } };
  }

  const sign = (signer: LocalAccount, challenge: NonceResponse) => signer.signMessage({ message: challenge.message });
  const ethCalls = () => proxy.calls.filter((call) => call.method === "eth_call");

  it("verifies a key's signature locally: no request reaches the chain node at all", async () => {
    await start();
    const owner = newWallet();
    const { challenge, body } = await applicationOf(owner.address, "key-owner");
    const before = proxy.calls.length;
    const created = await api.post("/integrators/applications", { ...body, signature: await sign(owner, challenge) });
    expect(created.status, created.text).to.equal(201);
    const view = await requestNonce(api, { wallet: owner.address, action: OnboardingAction.ViewProfile });
    expect((await api.post("/integrators/me", { owner_wallet: owner.address, ...(await signChallenge(owner, view)) })).status).to.equal(200);
    expect(proxy.calls.slice(before)).to.deep.equal([]);
  });

  it("refuses an ERC-6492-wrapped (or ERC-8010-wrapped) signature with 400 signature_unsupported, before any call to the node", async () => {
    await start();
    const owner = newWallet();
    const { challenge, body } = await applicationOf(owner.address, "wrapped-owner");
    const inner = await sign(owner, challenge);
    // The wrapper names a "factory" to call first: here the gas-burning contract, as an attacker would.
    const factory = await deploy("GasBurningWallet");
    const wrapped6492 = serializeErc6492Signature({ address: factory, data: "0xdeadbeef", signature: inner });
    const wrapped8010 = concatHex([inner, `0x${"00".repeat(32)}`, `0x${"8010".repeat(16)}`]);
    const before = proxy.calls.length;
    for (const signature of [wrapped6492, wrapped8010]) {
      const response = await api.post("/integrators/applications", { ...body, signature });
      expect(response.status, response.text).to.equal(400);
      expect(response.body.code).to.equal("signature_unsupported");
      expect(response.body.error).to.match(/^signature /);
    }
    expect(proxy.calls.slice(before)).to.deep.equal([]);
    // The nonce is untouched: the plain signature still works.
    expect((await api.post("/integrators/applications", { ...body, signature: inner })).status).to.equal(201);
  });

  it("asks a deployed ERC-1271 wallet with an eth_call capped at ONBOARDING_1271_GAS, and accepts its owner's signature", async () => {
    await start({ onboarding1271Gas: 123_456 });
    const key = newWallet();
    const wallet = await deploy("OwnerCheckingWallet", key.address);
    const { challenge, body } = await applicationOf(wallet, "contract-owner");
    const before = proxy.calls.length;
    const created = await api.post("/integrators/applications", { ...body, signature: await sign(key, challenge) });
    expect(created.status, created.text).to.equal(201);
    const calls = proxy.calls.slice(before);
    expect(calls.map((call) => call.method)).to.deep.equal(["eth_getCode", "eth_call"]);
    const request = calls[1]!.params[0] as { to: string; gas?: Hex };
    expect(request.to.toLowerCase()).to.equal(wallet.toLowerCase());
    expect(request.gas).to.equal(numberToHex(123_456));
  });

  it("answers a wallet that burns all its gas with 401 invalid_signature at the default cap of 300,000 gas", async () => {
    await start();
    const burner = await deploy("GasBurningWallet");
    const { challenge, body } = await applicationOf(burner, "burner-owner");
    const before = ethCalls().length;
    const started = Date.now();
    const response = await api.post("/integrators/applications", { ...body, signature: await sign(newWallet(), challenge) });
    expect(response.status, response.text).to.equal(401);
    expect(response.body.code).to.equal("invalid_signature");
    expect(Date.now() - started).to.be.below(api.config.onboarding1271TimeoutMs);
    const calls = ethCalls().slice(before);
    expect(calls).to.have.length(1);
    expect((calls[0]!.params[0] as { gas?: Hex }).gas).to.equal(numberToHex(300_000));
  });

  it("never follows an EIP-3668 OffchainLookup revert: the URL the wallet names gets no request, and the answer is 401", async () => {
    await start();
    const hits: string[] = [];
    const lookup = createServer((req, res) => {
      hits.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: "0x1626ba7e" }));
    });
    await new Promise<void>((resolve) => lookup.listen(0, "127.0.0.1", resolve));
    try {
      const wallet: Address = "0x0000000000000000000000000000000000c0de03";
      const revertData = encodeErrorResult({
        abi: [parseAbiItem("error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData)")],
        errorName: "OffchainLookup",
        args: [wallet, [`http://127.0.0.1:${(lookup.address() as AddressInfo).port}/{sender}/{data}`], "0x", "0x1626ba7e", "0x"],
      });
      // Runtime code that reverts every call with that data: CODECOPY the blob after the 14-byte prefix, REVERT.
      const length = numberToHex(size(revertData), { size: 2 }).slice(2);
      const bytecode = `0x61${length}600e60003961${length}6000fd${revertData.slice(2)}` as Hex;
      const { testClient } = await hardhatClients(hre);
      await testClient.setCode({ address: wallet, bytecode });
      const { challenge, body } = await applicationOf(wallet, "offchain-lookup");
      const response = await api.post("/integrators/applications", { ...body, signature: await sign(newWallet(), challenge) });
      expect(response.status, response.text).to.equal(401);
      expect(hits).to.deep.equal([]);
    } finally {
      await new Promise<void>((resolve) => lookup.close(() => resolve()));
    }
  });

  it("spends a nonce after 3 failed verifications: the 4th try, even with a valid signature, is 409 nonce_used saying it is used up", async () => {
    await start();
    const key = newWallet();
    const wallet = await deploy("OwnerCheckingWallet", key.address);
    const { challenge, body } = await applicationOf(wallet, "used-up");
    const before = ethCalls().length;
    for (let attempt = 0; attempt < 3; attempt++) {
      const wrong = await api.post("/integrators/applications", { ...body, signature: await sign(newWallet(), challenge) });
      expect(wrong.status, wrong.text).to.equal(401);
    }
    const late = await api.post("/integrators/applications", { ...body, signature: await sign(key, challenge) });
    expect(late.status).to.equal(409);
    expect(late.body).to.deep.equal({ error: "nonce is used up: 3 signature verifications failed; request a new one", code: "nonce_used" });
    expect(ethCalls().slice(before)).to.have.length(3);

    // The same for a plain key's garbage signatures: they cost an eth_getCode each, 3 at most.
    const owner = newWallet();
    const plain = await applicationOf(owner.address, "used-up-key");
    for (const signature of [`0x${"00".repeat(65)}`, `0x${"ff".repeat(65)}`, await sign(newWallet(), plain.challenge)]) {
      expect((await api.post("/integrators/applications", { ...plain.body, signature })).status).to.equal(401);
    }
    const afterwards = await api.post("/integrators/applications", { ...plain.body, signature: await sign(owner, plain.challenge) });
    expect(afterwards.body.code).to.equal("nonce_used");
  });

  it("counts a wallet call that fails with any JSON-RPC error (an invalid jump, a call too deep) against the nonce: never a free retry", async () => {
    await start();
    const key = newWallet();
    const wallet = await deploy("OwnerCheckingWallet", key.address);
    const { challenge, body } = await applicationOf(wallet, "odd-failure");
    proxy.fail("eth_call", "invalid jump destination");
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await api.post("/integrators/applications", { ...body, signature: await sign(newWallet(), challenge) });
        expect([refused.status, refused.body.code], refused.text).to.deep.equal([401, "invalid_signature"]);
      }
    } finally {
      proxy.allow();
    }
    const late = await api.post("/integrators/applications", { ...body, signature: await sign(key, challenge) });
    expect(late.body.code).to.equal("nonce_used");
  });

  it("answers 503 when the wallet's check outlives ONBOARDING_1271_TIMEOUT_MS, without counting it against the nonce", async () => {
    await start({ onboarding1271TimeoutMs: 150 });
    const key = newWallet();
    const wallet = await deploy("OwnerCheckingWallet", key.address);
    const { challenge, body } = await applicationOf(wallet, "slow-node");
    const signature = await sign(key, challenge);
    for (let attempt = 0; attempt < 3; attempt++) {
      proxy.before("eth_call", async () => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return true;
      });
      const slow = await api.post("/integrators/applications", { ...body, signature });
      expect(slow.status, slow.text).to.equal(503);
      expect(slow.body.code).to.equal("signature_verification_unavailable");
    }
    expect((await api.post("/integrators/applications", { ...body, signature })).status).to.equal(201);
  });
});
