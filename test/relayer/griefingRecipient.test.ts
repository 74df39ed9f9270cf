import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseEventLogs, type Address, type Hex } from "viem";
import { gaslessSwapRouterAbi, patchSignature, type RelayJson } from "../../sdk";
import { NATIVE_PAYOUT_GAS, NATIVE_PAYOUT_WORST_CASE_GAS, relayGasLimitOfCalldata, WETH_FALLBACK_GAS } from "../../sdk/relay/relayGasLimit";
import { join } from "node:path";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { freePort } from "../../scripts/devnet/freePort";
import { spawnService, type SpawnedService } from "../../scripts/devnet/spawnService";
import { gaslessReadyFixture, RELAYER_TOKEN, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

/** GriefingRecipient.Mode */
const Mode = { Accept: 0, BurnGas: 2 } as const;

/**
 * H-1 of the second audit: a gasless ERC20→ETH order whose recipient burns the native payout's
 * stipend, so the router pays it WETH instead. The relayer's gas limit must cover that (it used to
 * sign 1.5 × the model, which the fallback overran: the swap reverted at the relayer's expense).
 */
describe("gasless relays to a recipient that burns the native payout's gas (audit H-1)", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let stack: GaslessStack;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    stack = await startGaslessStack(f);
  });
  afterEach(async () => stack.close());

  const deployGriefer = async (mode: number) => {
    const griefer = await hre.viem.deployContract("GriefingRecipient", [], { client: { public: f.publicClient, wallet: f.deployer } });
    await f.publicClient.waitForTransactionReceipt({ hash: await griefer.write.setMode([mode]) });
    return griefer;
  };

  it("the worst case the relayer adds per native payout is the contract's own NATIVE_PAYOUT_GAS plus a WETH fallback measured on the devnet", async () => {
    const router = await hre.viem.getContractAt("GaslessSwapRouter", f.contracts.gaslessSwapRouter, { client: { public: f.publicClient } });
    expect(await router.read.NATIVE_PAYOUT_GAS()).to.equal(NATIVE_PAYOUT_GAS);
    const griefer = await deployGriefer(Mode.Accept);
    const taker = f.signerOf(f.taker.account.address);
    // Two swaps first: the taker's nonce word and the recipient's WETH slot are then as warm as they get
    // for the accepting run, so the difference below is the fallback at its most expensive (a fresh slot).
    const quote = (await stack.gaslessQuote(taker.address, { buy_token: "ETH", recipient: griefer.address })).body;
    const data = patchSignature(quote.tx.data, quote.tx.signature_offset, await stack.sign(quote, taker));
    const leastGas = () => f.publicClient.estimateGas({ account: relayerAccounts(1).signers[0]!.address, to: quote.tx.to, data });
    const accepting = await leastGas();
    await f.publicClient.waitForTransactionReceipt({ hash: await griefer.write.setMode([Mode.BurnGas]) });
    const burning = await leastGas();
    const extra = burning - accepting;
    const fallback = extra - NATIVE_PAYOUT_GAS;
    // The bound holds, and is not loose by more than a third (a constant nobody measured would be).
    expect(extra <= NATIVE_PAYOUT_WORST_CASE_GAS, `extra ${extra} over ${NATIVE_PAYOUT_WORST_CASE_GAS}`).to.equal(true);
    expect(Number(fallback), `measured fallback ${fallback} vs WETH_FALLBACK_GAS ${WETH_FALLBACK_GAS}`).to.be.within(Number(WETH_FALLBACK_GAS) * 0.66, Number(WETH_FALLBACK_GAS));
    // And the signed limit covers the burning swap.
    expect(relayGasLimitOfCalldata(quote.tx.estimated_gas, data) >= burning).to.equal(true);
  });

  it("five relays in a row to a stipend-burning recipient all confirm, paid in WETH; no signer pays for a revert, and the fee covers the signed limit", async () => {
    const griefer = await deployGriefer(Mode.BurnGas);
    const taker = f.signerOf(f.taker.account.address);
    for (let round = 0; round < 5; round++) {
      const quote = (await stack.gaslessQuote(taker.address, { buy_token: "ETH", recipient: griefer.address })).body;
      const wethBefore = await balanceOf(f, f.token("WETH"), griefer.address as Address);
      const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
      const relay: RelayJson = await stack.waitFor(submitted.body.relay_id);
      expect([relay.status, relay.reason], `round ${round}: ${JSON.stringify(relay)}`).to.deep.equal(["confirmed", null]);
      const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
      expect(receipt.status).to.equal("success");
      expect(parseEventLogs({ abi: gaslessSwapRouterAbi, logs: receipt.logs, eventName: "NativePayoutWrapped" })).to.have.length(1);
      expect(await balanceOf(f, f.token("WETH"), griefer.address as Address)).to.equal(wethBefore + BigInt(quote.buy_amount));
      // The limit signed is the one the fee was priced on (at most: the fee's draft assumed the widest fee).
      const sent = await f.publicClient.getTransaction({ hash: relay.tx_hash as Hex });
      const signedLimit = relayGasLimitOfCalldata(quote.tx.estimated_gas, sent.input);
      expect(sent.gas).to.equal(signedLimit);
      expect(BigInt(quote.relayer_fee.gas) >= signedLimit && BigInt(quote.relayer_fee.gas) - signedLimit < 1_000n, `${quote.relayer_fee.gas} vs ${signedLimit}`).to.equal(true);
    }
    // Every transaction the signers sent was one of these five swaps, and each succeeded.
    for (const signer of relayerAccounts().signers) {
      const count = await f.publicClient.getTransactionCount({ address: signer.address });
      expect(count).to.be.at.most(5);
    }
  });

  describe("with the relayer a child process on an HTTP chain, as npm start runs it", () => {
    let chain: ChainServer;
    let relayer: SpawnedService | undefined;
    beforeEach(async () => {
      await stack.close();
      chain = await startChainServer(hre, "127.0.0.1", 0);
      const port = await freePort();
      stack = await startGaslessStack(f, { relayerUrl: `http://127.0.0.1:${port}` });
      relayer = await spawnService(
        "relayer/main.ts",
        {
          RELAYER_PRIVATE_KEYS: relayerAccounts(2).signers.map((account) => account.privateKey).join(","),
          RELAYER_INTERNAL_TOKEN: RELAYER_TOKEN,
          RPC_URL: chain.url,
          DEPLOYMENTS_DIR: stack.directory,
          RELAYER_DB_PATH: join(stack.directory, "relayer.sqlite"),
          RELAYER_PORT: String(port),
          RELAYER_POLL_MS: "50",
          RELAYER_LOG_LEVEL: "warn",
        },
        /^Relayer on (\S+)$/m,
      );
    });
    afterEach(async () => {
      await relayer?.stop("SIGTERM");
      await chain.close();
    });

    it("five relays in a row to the audit's recipient confirm, and the signers' ETH went only to mined, successful swaps", async () => {
      const griefer = await deployGriefer(Mode.BurnGas);
      const taker = f.signerOf(f.taker.account.address);
      const signers = relayerAccounts(2).signers.map((signer) => signer.address);
      for (let round = 0; round < 5; round++) {
        const quote = (await stack.gaslessQuote(taker.address, { buy_token: "ETH", recipient: griefer.address })).body;
        const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
        expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
        const relay: RelayJson = await stack.waitFor(submitted.body.relay_id);
        expect([relay.status, relay.reason], `round ${round}: ${JSON.stringify(relay)}`).to.deep.equal(["confirmed", null]);
        expect((await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex })).status).to.equal("success");
      }
      const sent = (await Promise.all(signers.map((address) => f.publicClient.getTransactionCount({ address })))).reduce((a, b) => a + b, 0);
      expect(sent).to.equal(5);
    });
  });
});
