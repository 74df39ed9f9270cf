import { expect } from "chai";
import fc from "fast-check";
import pino from "pino";
import { encodeFunctionData, erc20Abi, getAddress, parseEther, parseGwei, recoverTransactionAddress, type Address, type Hex, type TransactionSerializableEIP1559 } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { SigningRefusedError } from "../../relayer/signing/signingRefusedError";
import { judgeTransaction, type SigningFacts } from "../../relayer/signing/signingRules";
import { SignerSpend, SPEND_WINDOW_MS } from "../../relayer/signing/signerSpend";
import { RegistryRouters } from "../../relayer/signing/registryRouters";
import { ChainHead } from "../../sdk/chain/chainHead";
import type { Signer } from "../../relayer/broadcast/signerPool";
import { fundedTakers, gaslessSuite, RELAYER_TOKEN, startGaslessStack } from "../fixtures/gaslessStack";

const CHAIN_ID = 4663;

async function refusal(signer: Signer, transaction: Partial<TransactionSerializableEIP1559>): Promise<string> {
  try {
    await signer.account.signTransaction({ type: "eip1559", chainId: CHAIN_ID, nonce: signer.nonces.next, gas: 100_000n, maxFeePerGas: parseGwei("3"), maxPriorityFeePerGas: parseGwei("1"), value: 0n, ...transaction } as TransactionSerializableEIP1559);
    return "signed";
  } catch (error) {
    if (!(error instanceof SigningRefusedError)) throw error;
    return error.reason;
  }
}

describe("the relayer's signing policy, enforced where signatures are made", function () {
  this.timeout(120_000);

  describe("against a running relayer's own signers", () => {
    const suite = gaslessSuite();

    it("refuses a transfer to a stranger, a call to another contract, value to the router, fees above the ceiling, a deployment and messages; signs a router call, a cancel at its own nonce and a top-up to its other signer; each refusal logged and counted", async () => {
      const lines: string[] = [];
      const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
      suite.stack = await startGaslessStack(suite.f, { relayerLogger: logger, signers: 2, relayerEnv: { RELAYER_MAX_FEE_GWEI: "100" } });
      const [signer, other] = suite.stack.relayer!.context.pool.signers as Signer[];
      const stranger = privateKeyToAccount(generatePrivateKey()).address;
      const router = suite.f.contracts.gaslessSwapRouter;
      const usdcTransfer = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [stranger, 1n] });

      expect(await refusal(signer!, { to: stranger, gas: 21_000n, value: 1n })).to.equal("transfer_to_stranger");
      expect(await refusal(signer!, { to: suite.f.token("USDC"), data: usdcTransfer })).to.equal("call_to_unlisted_contract");
      expect(await refusal(signer!, { to: suite.f.contracts.permit2, data: "0x12345678" })).to.equal("call_to_unlisted_contract");
      expect(await refusal(signer!, { to: router, data: "0x12345678", value: 1n })).to.equal("value_to_router");
      // One replacement bump past RELAYER_MAX_FEE_GWEI (a cancel's) is the most it signs.
      expect(await refusal(signer!, { to: router, data: "0x12345678", maxFeePerGas: parseGwei("111") })).to.equal("fee_above_ceiling");
      expect(await refusal(signer!, { to: undefined, data: "0x6080" })).to.equal("contract_creation");
      expect(await refusal(signer!, { to: signer!.address, gas: 21_000n, value: 1n })).to.equal("self_transfer_not_cancel");
      expect(await refusal(signer!, { to: signer!.address, gas: 21_000n, nonce: signer!.nonces.next + 5 })).to.equal("self_transfer_foreign_nonce");
      expect(await refusal(signer!, { to: other!.address, gas: 21_000n, value: parseEther("2") })).to.equal("value_above_cap");
      expect(await refusal(signer!, { to: other!.address, data: "0x01", value: 1n })).to.equal("top_up_not_plain");
      expect(await refusal(signer!, { to: signer!.address, gas: 21_000n, chainId: 1 })).to.equal("wrong_chain");
      expect(await signer!.account.signMessage!({ message: "hello" }).then(() => "signed", (error: Error) => error.message)).to.match(/signs transactions only/);

      // A self-transfer reuses a nonce the relayer allocated: allocate one as a cancel would.
      const nonce = signer!.nonces.allocate();
      const allowed: Partial<TransactionSerializableEIP1559>[] = [
        { to: router, data: "0x12345678", maxFeePerGas: parseGwei("110") },
        { to: signer!.address, gas: 21_000n, nonce },
        { to: other!.address, gas: 21_000n, value: parseEther("0.5") },
      ];
      for (const transaction of allowed) {
        const serialized = await signer!.account.signTransaction({ type: "eip1559", chainId: CHAIN_ID, nonce: signer!.nonces.next, gas: 100_000n, maxFeePerGas: parseGwei("3"), maxPriorityFeePerGas: parseGwei("1"), value: 0n, ...transaction } as TransactionSerializableEIP1559);
        expect(await recoverTransactionAddress({ serializedTransaction: serialized as Parameters<typeof recoverTransactionAddress>[0]["serializedTransaction"] })).to.equal(signer!.address);
      }
      signer!.nonces.giveBack(nonce);

      const refusals = lines.map((line) => JSON.parse(line) as { msg: string; reason?: string; signer?: string }).filter((line) => line.msg === "signing policy refused a transaction");
      expect(refusals.map((line) => line.reason)).to.include.members(["transfer_to_stranger", "call_to_unlisted_contract", "value_to_router", "fee_above_ceiling", "contract_creation"]);
      const metrics = await (await fetch(`${suite.stack.relayer!.metricsUrl}/metrics`)).text();
      expect(metrics).to.include(`relayer_signing_refusals_total{signer="${signer!.address}",reason="call_to_unlisted_contract"} 2`);
      expect(metrics).to.include(`relayer_signing_refusals_total{signer="${signer!.address}",reason="transfer_to_stranger"} 1`);
    });

    it("follows the registry: a paused gasless feature takes its router out of the allowed calls, an unpause brings it back", async () => {
      const { f } = suite;
      const routers = new RegistryRouters(f.publicClient, new ChainHead(f.publicClient), f.contracts.routerRegistry, pino({ level: "silent" }));
      await routers.load();
      const router = f.contracts.gaslessSwapRouter.toLowerCase();
      expect([...routers.routers]).to.include(router);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.registry.write.pause([3n]) });
      await routers.follow();
      expect([...routers.routers]).to.not.include(router);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.registry.write.unpause([3n]) });
      await routers.follow();
      expect([...routers.routers]).to.include(router);
    });

    it("a signer past its daily spend cap takes no new relays, and /ready says why", async () => {
      // 1 gwei of ETH: any swap's worst case (its gas limit at twice the base fee plus the tip) is above it.
      suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerEnv: { RELAYER_DAILY_SPEND_CAP_ETH: "0.000000001" } });
      const [taker] = await fundedTakers(suite.f, 1);
      const quote = (await suite.stack.gaslessQuote(taker!.address)).body;
      const submitted = await suite.stack.submit({ quote_id: quote.quote_id, signature: await suite.stack.sign(quote, taker!) });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
      const ready = async () => {
        const response = await fetch(`${suite.stack!.relayer!.url}/ready`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
        return { status: response.status, body: (await response.json()) as { checks: { signers: string }; signers: { spend_cap_reached: boolean }[] } };
      };
      const until = Date.now() + 10_000;
      let answer = await ready();
      while (answer.status === 200 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await ready();
      }
      expect(answer.status).to.equal(503);
      expect(answer.body.checks.signers).to.match(/daily spend cap/);
      expect(answer.body.signers[0]!.spend_cap_reached).to.equal(true);
      const relay = (await suite.stack.status(submitted.body.relay_id)).body as { status: string; tx_hash: string | null };
      expect(relay).to.include({ status: "accepted", tx_hash: null });
      expect(await suite.stack.relayer!.context.pool.tryLease()).to.equal(undefined);
    });
  });

  describe("the rules alone", () => {
    const self = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const own = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const router = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const facts: SigningFacts = { signer: self, chainId: CHAIN_ID, ownSigners: new Set([self.toLowerCase(), own.toLowerCase()]), routers: new Set([router.toLowerCase()]), nextNonce: 10, maxFeePerGas: parseGwei("100"), maxValue: parseEther("1") };
    const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(`0x${Buffer.from(bytes).toString("hex")}`) as Address);
    const transaction = fc.record({
      to: address,
      data: fc.oneof(fc.constant("0x" as Hex), fc.uint8Array({ minLength: 1, maxLength: 68 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}` as Hex)),
      value: fc.bigInt({ min: 0n, max: parseEther("2") }),
      gas: fc.bigInt({ min: 21_000n, max: 10_000_000n }),
      maxFeePerGas: fc.bigInt({ min: 1n, max: parseGwei("200") }),
      nonce: fc.integer({ min: 0, max: 20 }),
    });

    it("signs nothing addressed outside the registry's routers and the relayer's own signers, whatever its data, value, gas or fees", () => {
      fc.assert(
        fc.property(transaction, (drawn) => {
          fc.pre(![self, own, router].includes(drawn.to));
          const verdict = judgeTransaction({ type: "eip1559", chainId: CHAIN_ID, maxPriorityFeePerGas: 1n, ...drawn }, facts);
          expect(verdict.allowed).to.equal(false);
        }),
        { numRuns: 500 },
      );
    });

    it("what it allows is a value-free router call, a plain value-free self-transfer at an allocated nonce, or a plain top-up within the cap, all under the fee ceiling", () => {
      fc.assert(
        fc.property(transaction, fc.constantFrom(self, own, router), (drawn, to) => {
          const verdict = judgeTransaction({ type: "eip1559", chainId: CHAIN_ID, maxPriorityFeePerGas: 1n, ...drawn, to }, facts);
          if (!verdict.allowed) return;
          expect(drawn.maxFeePerGas <= facts.maxFeePerGas && drawn.value <= facts.maxValue).to.equal(true);
          if (verdict.purpose === "router_call") expect([to, drawn.value]).to.deep.equal([router, 0n]);
          if (verdict.purpose === "self_transfer") expect([to, drawn.value, drawn.data, drawn.gas, drawn.nonce < facts.nextNonce]).to.deep.equal([self, 0n, "0x", 21_000n, true]);
          if (verdict.purpose === "top_up") expect([to, drawn.value > 0n, drawn.data, drawn.gas]).to.deep.equal([own, true, "0x", 21_000n]);
        }),
        { numRuns: 500 },
      );
    });

    it("the spend ledger counts each nonce once at its costliest, lets a replacement through past the cap, refuses a new nonce past it unless it is a self-transfer (a gap fill, never refused), and forgets after a day", () => {
      let now = 1_000_000;
      const spend = new SignerSpend(100n);
      expect(spend.admit(0, 60n, now)).to.equal(true);
      expect(spend.admit(0, 80n, now)).to.equal(true); // a bump of nonce 0: counted at 80, not 140
      expect(spend.spent(now)).to.equal(80n);
      expect(spend.admit(1, 30n, now)).to.equal(false);
      expect(spend.exhausted(now)).to.equal(true);
      expect(spend.admit(0, 120n, now)).to.equal(true); // finishing what it has
      expect(spend.spent(now)).to.equal(120n);
      // A self-transfer filling nonce 1 goes out past the cap (else every later nonce waits behind it), and is counted.
      expect(spend.admit(1, 21n, now, true)).to.equal(true);
      expect(spend.spent(now)).to.equal(141n);
      now += SPEND_WINDOW_MS + 1;
      expect([spend.spent(now), spend.exhausted(now), spend.admit(2, 30n, now)]).to.deep.equal([0n, false, true]);
      expect(new SignerSpend(undefined).admit(5, 10n ** 30n, now)).to.equal(true);
    });
  });
});
