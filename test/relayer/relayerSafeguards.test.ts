import { expect } from "chai";
import pino from "pino";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { parseUnits, type Hex } from "viem";
import { encodeSwapGasless } from "../../sdk";
import { startRelayer } from "../../relayer/startRelayer";
import { gaslessReadyFixture, inProcessTransport, RELAYER_TOKEN, relayerAccounts, startGaslessStack, testRelayerConfig, type GaslessStack } from "../fixtures/gaslessStack";
import { relayerSeesBaseFee, setBaseFee } from "../fixtures/baseFee";
import type { SettlementFixture } from "../fixtures/settlementFixture";

describe("relayer safeguards of the operator's money: its signers, and fees below cost", function () {
  this.timeout(90_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("reads RELAYER_MAX_LOSS_BPS (0), RELAYER_TAKER_GAS_BUDGET (750,000) and RELAYER_INTEGRATOR_GAS_BUDGET (5,000,000), refusing bad values by name", () => {
    const config = testRelayerConfig("/tmp/unused");
    expect([config.maxLossBps, config.gasBudgets]).to.deep.equal([0, { taker: 750_000n, integrator: 5_000_000n }]);
    expect(testRelayerConfig("/tmp/unused", { RELAYER_TAKER_GAS_BUDGET: "300000", RELAYER_INTEGRATOR_GAS_BUDGET: "2000000" }).gasBudgets).to.deep.equal({ taker: 300_000n, integrator: 2_000_000n });
    for (const name of ["RELAYER_MAX_LOSS_BPS", "RELAYER_TAKER_GAS_BUDGET", "RELAYER_INTEGRATOR_GAS_BUDGET"]) {
      expect(() => testRelayerConfig("/tmp/unused", { [name]: "-1" })).to.throw(new RegExp(name));
    }
    // A budget below one transaction's intrinsic gas would refuse everyone: refused by name too.
    expect(() => testRelayerConfig("/tmp/unused", { RELAYER_TAKER_GAS_BUDGET: "20999" })).to.throw(/RELAYER_TAKER_GAS_BUDGET/);
  });

  it("the internal endpoint refuses a hand-off whose calldata it cannot derive a gas limit from, and a standing query without a valid taker, naming the field", async () => {
    stack = await startGaslessStack(f);
    const handOff = (data: Hex) =>
      fetch(`${stack!.relayer!.url}/internal/relays`, {
        method: "POST",
        headers: { authorization: `Bearer ${RELAYER_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          chain_id: 4663,
          quote_id: "7c0e2d6e-1b7e-4c1e-9a52-1f0e6f4b9a11",
          onchain_quote_id: `0x${"00".repeat(31)}01`,
          integrator_id: 1,
          api_key_id: 1,
          idempotency_key: null,
          taker: f.taker.account.address,
          router: f.contracts.gaslessSwapRouter,
          data,
          signature: `0x${"11".repeat(65)}`,
          permit2_nonce: "1",
          deadline: "1900000000",
          estimated_gas: 200000,
          fee_wei: "1000",
        }),
      });
    // Not swapGasless calldata at all; and swapGasless calldata (an ERC20 buy) whose route actions do not decode (opcode 0xff).
    const order = { sellToken: f.token("USDC"), sellAmount: 1_000_000n, buyToken: f.token("WETH"), minBuyAmount: 1n, recipient: f.taker.account.address, actions: "0xff" as Hex, quoteId: `0x${"00".repeat(31)}02` as Hex, deadline: 1_900_000_000n };
    const unreadable = encodeSwapGasless(order, f.taker.account.address, { relayerFee: 1n, relayerFeeRecipient: f.taker.account.address }, 1n).data;
    for (const data of ["0x12345678", unreadable] as Hex[]) {
      const post = await handOff(data);
      expect([post.status, ((await post.json()) as { code: string; error: string }).error], data.slice(0, 10)).to.deep.equal([400, "data: must be swapGasless calldata with readable route actions"]);
    }
    const standing = await fetch(`${stack.relayer!.url}/internal/gasless-standing?taker=0x12&integrator_id=1`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
    expect(standing.status).to.equal(400);
    expect(((await standing.json()) as { error: string }).error).to.match(/^taker/);
  });

  it("refuses to start while another live relayer on the same database signs with one of its keys, and starts once that one stopped", async () => {
    stack = await startGaslessStack(f);
    const shared = relayerAccounts(4).signers[3]!;
    const config = testRelayerConfig(stack.directory, { RELAYER_ID: "relayer-second", RELAYER_PRIVATE_KEYS: shared.privateKey });
    const refused = await startRelayer(config, pino({ level: "silent" }), inProcessTransport()).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).to.match(new RegExp(`another live relayer on this database signs with ${shared.address} \\(relayer relayer-0x`));
    await stack.relayer!.close();
    const second = await startRelayer(config, pino({ level: "silent" }), inProcessTransport());
    await second.close();
  });

  it("does not broadcast while the gas limit's cost is above the signed fee (RELAYER_MAX_LOSS_BPS 0): it waits, then ends expired / fee_below_cost at the deadline", async () => {
    stack = await startGaslessStack(f);
    const taker = f.signerOf(f.taker.account.address);
    const quote = (await stack.gaslessQuote(taker.address, { sell_amount: parseUnits("100", 6) })).body;
    // Priced at about 1 gwei (the tip over a near-zero devnet base fee); the network now asks 20.
    await setBaseFee(parseUnits("20", 9));
    await relayerSeesBaseFee(stack, (baseFee) => baseFee >= parseUnits("20", 9));
    const signerNonces = await Promise.all(relayerAccounts().signers.map((signer) => f.publicClient.getTransactionCount({ address: signer.address })));
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const waiting = (await stack.status(submitted.body.relay_id)).body;
    expect([waiting.status, waiting.transactions]).to.deep.equal(["accepted", []]);

    await time.increaseTo(BigInt(quote.permit2.message.deadline) + 1n);
    const ended = await stack.waitFor(submitted.body.relay_id, undefined, 60_000);
    expect([ended.status, ended.reason, ended.transactions]).to.deep.equal(["expired", "fee_below_cost", []]);
    expect(await Promise.all(relayerAccounts().signers.map((signer) => f.publicClient.getTransactionCount({ address: signer.address })))).to.deep.equal(signerNonces);
  });

  it("broadcasts at once when the fee covers the cost within RELAYER_MAX_LOSS_BPS, and when the operator sponsors gas", async () => {
    for (const options of [{ relayerEnv: { RELAYER_MAX_LOSS_BPS: "100000" } }, { gasless: { sponsorGas: true } }]) {
      stack = await startGaslessStack(f, options);
      const taker = f.signerOf(f.taker.account.address);
      const quote = (await stack.gaslessQuote(taker.address, { sell_amount: parseUnits("100", 6) })).body;
      // About five times the priced gas price: a loss of ~400 %, within the 1000 % allowed.
      await setBaseFee(parseUnits("5", 9));
      await relayerSeesBaseFee(stack, (baseFee) => baseFee >= parseUnits("5", 9));
      const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
      const relay = await stack.waitFor(submitted.body.relay_id);
      expect([relay.status, relay.reason], JSON.stringify(options)).to.deep.equal(["confirmed", null]);
      await stack.close();
      stack = undefined;
    }
  });
});
