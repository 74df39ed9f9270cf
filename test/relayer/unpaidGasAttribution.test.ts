import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, parseUnits, type Address, type Hex, type LocalAccount } from "viem";
import { decodeGaslessCall, decodeRouteActions, encodeRouteActions, encodeSwapGaslessExactOutput, uniswapV2PairAbi, type RelayJson } from "../../sdk";
import { decideCause, TAKER_PULL_REFUSED_DETAIL, UNPROVEN_DETAIL } from "../../relayer/attribution/decideCause";
import { readAttributionFacts } from "../../relayer/attribution/readAttributionFacts";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { FRONT_TIP, fundStranger, queueSandwich } from "../fixtures/sandwich";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/**
 * Issue 28: who caused a relayed order's failure is read from the chain at its block (the registry's
 * gate, the pools' reserves the order met), so a third party's trade never counts against the taker,
 * and a pause is the operator's. A real chain (Hardhat, automine off to build the block), the relayer
 * and the API in-process, as the audit ran its proofs of concept.
 */
describe("who caused a failed relay: a sandwich and a pause at the mining block (relayer, API and a real chain)", function () {
  this.timeout(240_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
  });
  afterEach(async () => {
    await setAutomine(true);
    await stack?.close();
    stack = undefined;
  });

  /** Quotes, signs and submits a gasless relay with automine off, and waits until its swap is in the mempool. */
  async function pendingRelay(taker: LocalAccount, sellAmount = parseUnits("100", 6)): Promise<{ relayId: string; pair: Address; hash: Hex }> {
    const quote = (await stack!.gaslessQuote(taker.address, { sell_amount: sellAmount })).body;
    expect(quote.quote_id, JSON.stringify(quote)).to.be.a("string");
    await setAutomine(false);
    const submitted = await stack!.submit({ quote_id: quote.quote_id, signature: await stack!.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const relayId = submitted.body.relay_id as string;
    const pending = await stack!.waitFor(relayId, (relay) => relay.status === "submitted");
    const record = await stack!.relayer!.context.store.getRelay(relayId);
    const actions = decodeRouteActions(decodeGaslessCall(record!.data).order.params.actions);
    const hop = actions.find((action) => action.type === "swapV2");
    expect(hop, `a route with a direct V2 hop: ${JSON.stringify(actions)}`).to.not.equal(undefined);
    return { relayId, pair: (hop as { pair: Address }).pair, hash: pending.tx_hash as Hex };
  }

  /**
   * A relay's exact-input order, as the exact-output SPLIT over the same pair that api/quote plans for
   * gasless (maximum input: its sell amount; output: its minimum): a route that cannot be repriced.
   */
  async function asExactOutputSplit(relayId: string) {
    const record = (await stack!.relayer!.context.store.getRelay(relayId))!;
    const call = decodeGaslessCall(record.data);
    if (call.kind === "exactOutput") throw new Error("the quote is exact-input");
    const hop = decodeRouteActions(call.order.params.actions).find((action) => action.type === "swapV2") as { pair: Address; tokenOut: Address; feeBps: number };
    const { params } = call.order;
    const split = encodeRouteActions([{ type: "split", legs: [5_000, 5_000].map((shareBps) => ({ shareBps, hops: [{ type: "swapV2", pair: hop.pair, tokenOut: hop.tokenOut, feeBps: hop.feeBps }] })) }]);
    const { data } = encodeSwapGaslessExactOutput(
      { sellToken: params.sellToken, maxSellAmount: params.sellAmount, buyToken: params.buyToken, buyAmount: params.minBuyAmount, recipient: params.recipient, deadline: params.deadline, quoteId: params.quoteId, actions: split },
      record.taker,
      { relayerFee: call.order.relayerFee, relayerFeeRecipient: call.order.relayerFeeRecipient },
      call.order.nonce,
    );
    return { ...record, data, relayerFee: call.order.relayerFee };
  }

  const charged = async (taker: LocalAccount) => stack!.relayer!.context.store.unpaidGasCharged({ taker: taker.address, integratorId: stack!.api.integratorId, since: new Date(0) });
  const ledger = async () =>
    (await stack!.relayer!.context.store.unpaidGasTotals({ integratorId: stack!.api.integratorId })).map((total) => [total.cause, total.kind, total.entries]);

  it("a third party's sandwich in the victim's block (front-run past its slippage, back-run after) is the market's: the swap reverts, the ledger says market, the relay is sent once more and confirms; three rounds later the taker and its integrator are still served and charged nothing, with budgets below one swap", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_TAKER_GAS_BUDGET: "21000", RELAYER_INTEGRATOR_GAS_BUDGET: "21000" } });
    const [victim] = await fundedTakers(f, 1);
    await fundStranger(f, f.token("USDC"), parseUnits("10000000", 6));
    for (let round = 0; round < 3; round++) {
      const { relayId, pair, hash } = await pendingRelay(victim!);
      const [reserve0, reserve1] = await f.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" });
      const token0 = await f.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token0" });
      const usdcReserve = token0.toLowerCase() === f.token("USDC").toLowerCase() ? reserve0 : reserve1;
      // Selling 5 % of the pool's USDC moves its price about 10 %, far past the quote's 1 % slippage.
      const sandwich = await queueSandwich(f, pair, f.token("USDC"), usdcReserve / 20n, { back: true });
      await mine(1);
      await setAutomine(true);
      const [front, victimReceipt, back] = await Promise.all([
        f.publicClient.getTransactionReceipt({ hash: sandwich.front[1]! }),
        f.publicClient.getTransactionReceipt({ hash }),
        f.publicClient.getTransactionReceipt({ hash: sandwich.back[1]! }),
      ]);
      // The block is the attack: front-run, victim (reverted), back-run, in that order.
      expect([front.blockNumber, back.blockNumber]).to.deep.equal([victimReceipt.blockNumber, victimReceipt.blockNumber]);
      expect(front.transactionIndex < victimReceipt.transactionIndex && victimReceipt.transactionIndex < back.transactionIndex).to.equal(true);
      expect([front.status, victimReceipt.status, back.status]).to.deep.equal(["success", "reverted", "success"]);
      const done: RelayJson = await stack.waitFor(relayId);
      expect(done.status, JSON.stringify(done)).to.equal("confirmed");
      // Sent exactly once more: the reverted swap and its resend, which filled.
      expect(done.transactions.map((transaction) => transaction.hash === hash)).to.deep.equal([true, false]);
      expect(done.tx_hash).to.not.equal(hash);
      // Never refused: a new gasless quote is served after every round.
      const next = await stack.gaslessQuote(victim!.address, { sell_amount: parseUnits("100", 6) });
      expect([next.status, next.body.code ?? null], JSON.stringify(next.body)).to.deep.equal([200, null]);
    }
    expect(await ledger()).to.deep.equal([["market", "reverted_swap", 3]]);
    expect(await charged(victim!)).to.deep.equal({ taker: 0n, integrator: 0n });
  });

  it("an order whose route cannot be repriced (an exact-output SPLIT) met a pool that traded before it in its block: the market's, read from the pair's Sync; met no trade before it: unproven, the integrator's budget alone; never the taker's for want of facts", async () => {
    stack = await startGaslessStack(f, { signers: 1 });
    const [victim] = await fundedTakers(f, 1);
    await fundStranger(f, f.token("USDC"), parseUnits("10000000", 6));
    const { relayId, pair, hash } = await pendingRelay(victim!);
    const [reserve0, reserve1] = await f.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" });
    const token0 = await f.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token0" });
    const usdcReserve = token0.toLowerCase() === f.token("USDC").toLowerCase() ? reserve0 : reserve1;
    const sandwich = await queueSandwich(f, pair, f.token("USDC"), usdcReserve / 20n, { back: false });
    await mine(1);
    await setAutomine(true);
    const [front, victimReceipt] = await Promise.all([f.publicClient.getTransactionReceipt({ hash: sandwich.front[1]! }), f.publicClient.getTransactionReceipt({ hash })]);
    expect([front.blockNumber, front.transactionIndex < victimReceipt.transactionIndex, victimReceipt.status]).to.deep.equal([victimReceipt.blockNumber, true, "reverted"]);
    await stack.waitFor(relayId);
    const exactOutput = await asExactOutputSplit(relayId);
    const at = { blockNumber: victimReceipt.blockNumber, transactionIndex: victimReceipt.transactionIndex };
    const facts = await readAttributionFacts(f.publicClient, stack.relayer!.context, exactOutput, at);
    expect([facts.route, facts.tradedBefore]).to.deep.equal([undefined, true]);
    expect(decideCause(facts).cause).to.equal("market");
    // At the block's first transaction, before the front-run: no trade met, nobody's fault proven: the
    // integrator's budget alone (unproven), never the taker's.
    const first = await readAttributionFacts(f.publicClient, stack.relayer!.context, exactOutput, { ...at, transactionIndex: 0 });
    expect([first.tradedBefore, first.takerPullRefused], "the taker holds its maximum plus the fee: its pull simulated goes through").to.deep.equal([false, false]);
    expect(decideCause(first)).to.include({ cause: "integrator", detail: UNPROVEN_DETAIL });
  });

  it("a taker that moves its own sell token away within the order's block is the taker's, priceable or not: the swap reverts, the ledger says taker, its budget (one swap's gas) then refuses its next gasless quote; the same order as an unpriceable exact-output SPLIT is the taker's too (Permit2's pull of its maximum, simulated, is refused), where it met no trade and was the integrator's before", async () => {
    stack = await startGaslessStack(f, { signers: 1, relayerEnv: { RELAYER_TAKER_GAS_BUDGET: "21000" } });
    const [taker, bystander] = await fundedTakers(f, 2);
    const sellAmount = parseUnits("100", 6);
    const { relayId, hash } = await pendingRelay(taker!, sellAmount);
    // The taker's own transfer, tipped before the relayer's swap in the same block: it keeps one unit
    // less than the sell amount (more than any relayer fee), so the pull of sell amount plus fee fails.
    const held = await f.publicClient.readContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "balanceOf", args: [taker!.address] });
    const wallet = await hre.viem.getWalletClient(taker!.address, { account: taker! });
    const block = await f.publicClient.getBlock();
    const away = await wallet.writeContract({
      address: f.token("USDC"),
      abi: erc20Abi,
      functionName: "transfer",
      args: [bystander!.address, held - (sellAmount - 1n)],
      gas: 100_000n,
      maxFeePerGas: (block.baseFeePerGas ?? 0n) * 3n + FRONT_TIP,
      maxPriorityFeePerGas: FRONT_TIP,
    });
    await mine(1);
    await setAutomine(true);
    const [moved, failed] = await Promise.all([f.publicClient.getTransactionReceipt({ hash: away }), f.publicClient.getTransactionReceipt({ hash })]);
    expect([moved.blockNumber, moved.transactionIndex < failed.transactionIndex, moved.status, failed.status]).to.deep.equal([failed.blockNumber, true, "success", "reverted"]);
    const done: RelayJson = await stack.waitFor(relayId);
    expect(done.status, JSON.stringify(done)).to.equal("failed");
    expect(await ledger()).to.deep.equal([["taker", "reverted_swap", 1]]);
    const spent = await charged(taker!);
    expect(spent.taker, "the swap's gas, charged to the taker").to.equal(failed.gasUsed);
    const refused = await stack.gaslessQuote(taker!.address, { sell_amount: parseUnits("1", 6) });
    expect([refused.status, refused.body.code], JSON.stringify(refused.body)).to.deep.equal([403, "gasless_taker_gas_budget_spent"]);

    // The same order, unpriceable: the old pull (the relayer fee alone) is covered, so only the
    // simulated pull of its maximum plus the fee says it is the taker's.
    const exactOutput = await asExactOutputSplit(relayId);
    expect(exactOutput.relayerFee < sellAmount - 1n, "the taker still holds the fee").to.equal(true);
    const at = { blockNumber: failed.blockNumber, transactionIndex: failed.transactionIndex };
    const facts = await readAttributionFacts(f.publicClient, stack.relayer!.context, exactOutput, at);
    expect([facts.route, facts.tradedBefore, facts.fundsShort, facts.takerPullRefused]).to.deep.equal([undefined, false, false, true]);
    expect(decideCause(facts)).to.include({ cause: "taker", detail: TAKER_PULL_REFUSED_DETAIL, retryable: false });
    expect(decideCause({ ...facts, takerPullRefused: false }).cause, "the attribution before the simulated pull").to.equal("integrator");
  });

  it("a front-run with no back-run leaves the pool past the minimum: market, not sent again (repriced at the latest block it would still miss), ends failed / market_moved, charged to nobody", async () => {
    stack = await startGaslessStack(f, { signers: 1 });
    const [victim] = await fundedTakers(f, 1);
    await fundStranger(f, f.token("USDC"), parseUnits("10000000", 6));
    const { relayId, pair } = await pendingRelay(victim!);
    const [reserve0, reserve1] = await f.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" });
    const token0 = await f.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token0" });
    const usdcReserve = token0.toLowerCase() === f.token("USDC").toLowerCase() ? reserve0 : reserve1;
    await queueSandwich(f, pair, f.token("USDC"), usdcReserve / 20n, { back: false });
    await mine(1);
    await setAutomine(true);
    const done: RelayJson = await stack.waitFor(relayId);
    expect([done.status, done.reason, done.transactions.length], JSON.stringify(done)).to.deep.equal(["failed", "market_moved", 1]);
    expect(done.error).to.match(/a pool moved within the block, before the order/);
    expect(await ledger()).to.deep.equal([["market", "reverted_swap", 1]]);
    expect(await charged(victim!)).to.deep.equal({ taker: 0n, integrator: 0n });
  });

  it("a pause of feature 3 mined in the swap's block, before it, is the operator's: the swap reverts, the relay ends failed (not sent again while paused), the ledger says operator, the taker is charged nothing", async () => {
    stack = await startGaslessStack(f, { signers: 1 });
    const [taker] = await fundedTakers(f, 1);
    const { relayId, hash } = await pendingRelay(taker!);
    const block = await f.publicClient.getBlock();
    await f.registry.write.pause([3n], { gas: 300_000n, maxFeePerGas: (block.baseFeePerGas ?? 0n) * 3n + FRONT_TIP, maxPriorityFeePerGas: FRONT_TIP });
    await mine(1);
    await setAutomine(true);
    const receipt = await f.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).to.equal("reverted");
    const [paused] = await f.publicClient.readContract({ address: f.contracts.gaslessSwapRouter, abi: f.gaslessRouter.abi, functionName: "status", blockNumber: receipt.blockNumber - 1n });
    expect(paused, "not paused at the parent block: the pause came within the swap's own block").to.equal(false);
    const done: RelayJson = await stack.waitFor(relayId);
    expect([done.status, done.reason, done.transactions.length], JSON.stringify(done)).to.deep.equal(["failed", "reverted", 1]);
    expect(done.error).to.match(/router was paused or not active at the mined block/);
    expect(await ledger()).to.deep.equal([["operator", "reverted_swap", 1]]);
    expect(await charged(taker!)).to.deep.equal({ taker: 0n, integrator: 0n });
    await f.registry.write.unpause([3n]);
  });
});
