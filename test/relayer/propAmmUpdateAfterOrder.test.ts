import { expect } from "chai";
import hre from "hardhat";
import { mine } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, parseUnits, type Hex } from "viem";
import type { RelayJson } from "../../sdk";
import { decideCause } from "../../relayer/attribution/decideCause";
import { readAttributionFacts } from "../../relayer/attribution/readAttributionFacts";
import { fundedTakers, gaslessSuite, startGaslessStack } from "../fixtures/gaslessStack";
import { BACK_TIP, FRONT_TIP } from "../fixtures/sandwich";
import { balanceOf } from "../fixtures/testRoute";
import { onlySources } from "../fixtures/onlySources";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });
const json = (value: unknown) => JSON.stringify(value, (_, inner) => (typeof inner === "bigint" ? inner.toString() : inner));

/**
 * Review finding (c): a failed propAMM relay is repriced for the state it met with the lower of the
 * parent block's and the block end's `getAmountOut`. When the propAMM changed in the same block but
 * after the order (its price lowered, or a swap through it), the block's end shows a change the order
 * never met: the lower quote then made a taker's own failure look like the market's, counted against
 * nobody, which a taker can line up behind its own failing order. A propAMM that logged only after the
 * order is repriced at the parent's state; one that logged before it is still not repriced (the
 * market's, gaslessVenues.test.ts). The devnet's DevPropAmm on a real chain (Hardhat), the relayer and
 * the API in-process; transactions ordered within one block by their priority fees.
 */
describe("a propAMM whose price changes after a failed relay in the same block: the order is repriced at the state it met, not the block's end (relayer, DevPropAmm, a real chain)", function () {
  this.timeout(240_000);
  const suite = gaslessSuite();

  it("the taker empties its balance before its propAMM relay and the propAMM's price falls 5 % after it in the block: the taker's (funds short, the route filled at the state met), not the market's", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const stack = suite.stack;
    const [taker] = await fundedTakers(suite.f, 1);
    const propAmm = stack.manifest.propAmms![0]!;
    const dev = await hre.viem.getContractAt("DevPropAmm", propAmm.address, { client: { public: suite.f.publicClient, wallet: suite.f.deployer } });
    const usdc = suite.f.token("USDC");
    const { status, body } = await stack.gaslessQuote(taker!.address, { sell_token: usdc, buy_token: suite.f.token("WETH"), sell_amount: parseUnits("1000", 6), slippage_bps: 10, ...onlySources(stack.manifest, "dev-propamm") });
    expect(status, json(body)).to.equal(200);
    await setAutomine(false);
    const submitted = await stack.submit({ quote_id: body!.quote_id, signature: await stack.sign(body as never, taker!) });
    expect(submitted.status, json(submitted.body)).to.equal(202);
    const relayId = submitted.body.relay_id as string;
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    const block = await suite.f.publicClient.getBlock();
    const maxFeePerGas = (block.baseFeePerGas ?? 0n) * 3n + FRONT_TIP;
    // Before the relay (a higher tip): the taker moves its whole USDC balance away.
    const wallet = await hre.viem.getWalletClient(taker!.address, { account: taker! });
    const emptied = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [suite.f.stranger.account.address, await balanceOf(suite.f, usdc, taker!.address)], gas: 100_000n, maxFeePerGas, maxPriorityFeePerGas: FRONT_TIP });
    // After the relay (no tip): the operator lowers the propAMM's output for this direction by 5 %.
    const [price, spread] = await Promise.all([dev.read.price(), dev.read.spreadBps()]);
    const zeroForOne = propAmm.token0.toLowerCase() === usdc.toLowerCase();
    const moved = zeroForOne ? (price * 95n) / 100n : (price * 105n) / 100n;
    const priced = await dev.write.setPrice([moved, spread], { gas: 200_000n, maxFeePerGas, maxPriorityFeePerGas: BACK_TIP });
    await mine(1);
    await setAutomine(true);
    const [emptiedReceipt, relayReceipt, pricedReceipt] = await Promise.all([emptied, pending.tx_hash as Hex, priced].map((hash) => suite.f.publicClient.getTransactionReceipt({ hash })));
    expect(
      [emptiedReceipt!.blockNumber === relayReceipt!.blockNumber && pricedReceipt!.blockNumber === relayReceipt!.blockNumber, emptiedReceipt!.transactionIndex < relayReceipt!.transactionIndex, relayReceipt!.transactionIndex < pricedReceipt!.transactionIndex, relayReceipt!.status],
      "one block: the taker's transfer, the relay, then the price change",
    ).to.deep.equal([true, true, true, "reverted"]);

    const done: RelayJson = await stack.waitFor(relayId);
    expect([done.status, done.reason], json(done)).to.deep.equal(["failed", "reverted"]);
    const ledger = (await stack.relayer!.context.store.unpaidGasTotals({ integratorId: stack.api.integratorId })).map((total) => [total.cause, total.kind, total.entries]);
    expect(ledger).to.deep.equal([["taker", "reverted_swap", 1]]);

    // The facts: repriced at the parent's quote (what the order met), which fills; the block's end,
    // 5 % lower, would have missed the minimum and read as the market's.
    const record = (await stack.relayer!.context.store.getRelay(relayId))!;
    const at = { blockNumber: relayReceipt!.blockNumber, transactionIndex: relayReceipt!.transactionIndex };
    const facts = await readAttributionFacts(suite.f.publicClient, stack.relayer!.context, record, at);
    expect(facts.route, json(facts)).to.not.equal(undefined);
    expect([facts.route!.met === facts.route!.atParent, facts.route!.met >= facts.route!.minimum, facts.tradedBefore, facts.fundsShort], json(facts)).to.deep.equal([true, true, false, true]);
    expect(decideCause(facts).cause).to.equal("taker");
    await mine(1);
    const atEnd = await readAttributionFacts(suite.f.publicClient, stack.relayer!.context, record, { blockNumber: relayReceipt!.blockNumber + 1n, transactionIndex: 0 });
    expect(atEnd.route!.atParent < facts.route!.minimum, `the block's end quotes ${atEnd.route!.atParent} against a minimum of ${facts.route!.minimum}`).to.equal(true);
  });
});
