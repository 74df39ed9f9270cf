import { expect } from "chai";
import hre from "hardhat";
import { mine } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address, type Hex, type LocalAccount } from "viem";
import { decodeGaslessCall, decodeRouteActions, encodeRouteActions, encodeSwapGaslessFromContract, gaslessExactOutputRouterAbi, patchSignature, routeHops, type RelayJson } from "../../sdk";
import { decideCause } from "../../relayer/attribution/decideCause";
import { readAttributionFacts } from "../../relayer/attribution/readAttributionFacts";
import { readRouteVenues } from "../../relayer/attribution/routeVenues";
import type { RelayRecord } from "../../relayer/store/relayStore";
import { fundedTakers, gaslessSuite, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { FRONT_TIP, frontRunInVictimBlock, fundStranger } from "../fixtures/sandwich";
import { onlySources } from "../fixtures/onlySources";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });
const setNextBaseFee = (wei: bigint) => hre.network.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${wei.toString(16)}`] });
const json = (value: unknown) => JSON.stringify(value, (_, item) => (typeof item === "bigint" ? item.toString() : item));

type Hop = { source: string; pool: string };
type QuoteBody = Record<string, any>;

const V4_ONLY = (stack: GaslessStack) => onlySources(stack.manifest, "uniswap-v4");

/**
 * Issue 32: the relayer reprices a failed relay's SWAP_V4 hops from the PoolManager's own state
 * (StateView at the parent block, then the PoolManager's events before the order in its block), as it
 * does V3 pools. Real chain (Hardhat) with the devnet's V4 market, the relayer and the API in-process.
 */
describe("a failed relay over Uniswap V4 pools attributed from the PoolManager's state (relayer, API and a real chain)", function () {
  this.timeout(240_000);
  const suite = gaslessSuite();

  async function submit(taker: LocalAccount, body: QuoteBody): Promise<string> {
    const submitted = await suite.stack!.submit({ quote_id: body.quote_id, signature: await suite.stack!.sign(body as never, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    return submitted.body.relay_id as string;
  }

  /**
   * A V4-only gasless relay of 1,000 USDC → USDT at 10 bps slippage, pending with automine off, and a
   * stranger's signed 300,000 USDC → USDT sale through the same V4 pool (the API's taker route), not sent.
   */
  async function v4RelayAndFrontRun(): Promise<{ relayId: string; hash: Hex; front: { to: Address; data: Hex } }> {
    const stack = suite.stack!;
    const [victim] = await fundedTakers(suite.f, 1);
    await fundStranger(suite.f, suite.f.token("USDC"), parseUnits("10000000", 6));
    const stranger = suite.f.signerOf(suite.f.stranger.account.address);
    await suite.f.publicClient.waitForTransactionReceipt({ hash: await suite.f.stranger.writeContract({ address: suite.f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [suite.f.contracts.permit2, maxUint256] }) });
    const pair = { sell_token: suite.f.token("USDC"), buy_token: suite.f.token("USDT") };
    const front = await stack.api.quote({ ...pair, sell_amount: parseUnits("300000", 6), taker: stranger.address, ...V4_ONLY(stack) });
    expect(front.status, JSON.stringify(front.body)).to.equal(200);
    const { status, body } = await stack.gaslessQuote(victim!.address, { ...pair, ...V4_ONLY(stack), sell_amount: parseUnits("1000", 6), slippage_bps: 10 });
    expect(status, JSON.stringify(body)).to.equal(200);
    const hops = body!.route.hops as Hop[];
    expect(hops.map((hop) => hop.source), JSON.stringify(body!.route)).to.deep.equal(["uniswap-v4"]);
    expect((front.body!.route.hops as Hop[]).some((hop) => hop.pool.toLowerCase() === hops[0]!.pool.toLowerCase()), "the front-run trades the victim's pool").to.equal(true);
    await setAutomine(false);
    const relayId = await submit(victim!, body!);
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    const data = patchSignature(front.body!.tx.data as Hex, front.body!.tx.signature_offset, await stranger.signTypedData(front.body!.permit2));
    return { relayId, hash: pending.tx_hash as Hex, front: { to: front.body!.tx.to as Address, data } };
  }

  const ledger = async () => (await suite.stack!.relayer!.context.store.unpaidGasTotals({ integratorId: suite.stack!.api.integratorId })).map((total) => [total.cause, total.kind, total.entries]);

  /** The relay's record, its route all SWAP_V4 hops. */
  async function v4Record(relayId: string): Promise<RelayRecord> {
    const record = (await suite.stack!.relayer!.context.store.getRelay(relayId))!;
    const call = decodeGaslessCall(record.data);
    expect(routeHops(decodeRouteActions(call.order.params.actions), call.order.params.sellToken).every(({ hop }) => hop.type === "swapV4")).to.equal(true);
    return record;
  }

  it("a third party's V4 swap mined in the relay's block before it is the market's: repriced through the PoolManager's Swap event (met below the minimum, the parent above it), never the taker's", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const { relayId, hash, front } = await v4RelayAndFrontRun();
    const [frontReceipt, victimReceipt] = await frontRunInVictimBlock(suite.f, front, hash);
    expect([frontReceipt.status, victimReceipt.status, frontReceipt.blockNumber, frontReceipt.transactionIndex < victimReceipt.transactionIndex]).to.deep.equal(["success", "reverted", victimReceipt.blockNumber, true]);
    const done: RelayJson = await suite.stack.waitFor(relayId);
    expect(done.status, JSON.stringify(done)).to.be.oneOf(["failed", "confirmed"]);
    expect(await ledger()).to.deep.equal([["market", "reverted_swap", 1]]);

    const record = await v4Record(relayId);
    const context = suite.stack.relayer!.context;
    const at = { blockNumber: victimReceipt.blockNumber, transactionIndex: victimReceipt.transactionIndex };
    const facts = await readAttributionFacts(suite.f.publicClient, context, record, at);
    expect(facts.route, "a V4 route is repriced").to.not.equal(undefined);
    expect(facts.route!.met < facts.route!.minimum && facts.route!.atParent >= facts.route!.minimum, json(facts)).to.equal(true);
    expect([facts.tradedBefore, facts.routeRefused, decideCause(facts).cause]).to.deep.equal([true, false, "market"]);
    // The state met, followed through the front-run's events, is the chain's own: StateView at the block's
    // end (the victim reverted; nothing after it touched the pool) prices the route the same.
    await mine(1);
    const after = await readAttributionFacts(suite.f.publicClient, context, record, { blockNumber: victimReceipt.blockNumber + 1n, transactionIndex: 0 });
    expect(after.route!.atParent).to.equal(facts.route!.met);
    // At the block's first transaction, before the front-run: the pool as at the parent, the route fills.
    const first = await readAttributionFacts(suite.f.publicClient, context, record, { ...at, transactionIndex: 0 });
    expect([first.route!.met, first.tradedBefore]).to.deep.equal([first.route!.atParent, false]);
  });

  it("a V4 swap mined in the block before the relay's moved the pool before the relay was mined: repriced below the minimum at the parent block too, so the miss is the operator's latency (market-made, counted against no taker)", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const { relayId, hash, front } = await v4RelayAndFrontRun();
    // The relay stays in the mempool for one block: that block's base fee is above its fee cap, the stranger's is not.
    const [relayTx, block] = await Promise.all([suite.f.publicClient.getTransaction({ hash }), suite.f.publicClient.getBlock()]);
    const high = relayTx.maxFeePerGas! + 1n;
    await setNextBaseFee(high);
    const frontHash = await suite.f.stranger.sendTransaction({ ...front, gas: 2_000_000n, maxFeePerGas: high * 2n + FRONT_TIP, maxPriorityFeePerGas: FRONT_TIP });
    await mine(1);
    await setNextBaseFee(block.baseFeePerGas ?? 1n);
    await mine(1);
    await setAutomine(true);
    const [frontReceipt, victimReceipt] = await Promise.all([suite.f.publicClient.getTransactionReceipt({ hash: frontHash }), suite.f.publicClient.getTransactionReceipt({ hash })]);
    expect([frontReceipt.status, victimReceipt.status, frontReceipt.blockNumber + 1n]).to.deep.equal(["success", "reverted", victimReceipt.blockNumber]);
    const done: RelayJson = await suite.stack.waitFor(relayId);
    expect(done.status, JSON.stringify(done)).to.be.oneOf(["failed", "confirmed"]);
    expect(await ledger()).to.deep.equal([["operator", "reverted_swap", 1]]);

    const record = await v4Record(relayId);
    const facts = await readAttributionFacts(suite.f.publicClient, suite.stack.relayer!.context, record, { blockNumber: victimReceipt.blockNumber, transactionIndex: victimReceipt.transactionIndex });
    expect(facts.route, "a V4 route is repriced").to.not.equal(undefined);
    // Nothing traded the pool within the relay's block: the state met is the parent's, already below the minimum.
    expect([facts.route!.met === facts.route!.atParent, facts.route!.atParent < facts.route!.minimum, facts.tradedBefore, facts.routeRefused], json(facts)).to.deep.equal([true, true, false, false]);
    const attribution = decideCause(facts);
    expect([attribution.cause, attribution.market], attribution.detail).to.deep.equal(["operator", true]);
    expect((await suite.stack.relayer!.context.store.unpaidGasCharged({ taker: record.taker, integratorId: suite.stack.api.integratorId, since: new Date(0) })).taker).to.equal(0n);
  });

  it("a V4 hop naming a pool nobody initialised is refused (the operator's side), in an exact-output SPLIT too (not repriced, still checked), and so are an exact-output order's V4 hops on a router built before exact output over V4; without the manifest's StateView the relayer neither prices nor refuses a V4 hop it could run", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const { relayId, hash, front } = await v4RelayAndFrontRun();
    const block = await suite.f.publicClient.getBlock();
    await suite.f.stranger.sendTransaction({ ...front, gas: 2_000_000n, maxFeePerGas: (block.baseFeePerGas ?? 0n) * 3n + FRONT_TIP, maxPriorityFeePerGas: FRONT_TIP });
    await mine(1);
    await setAutomine(true);
    const receipt = await suite.f.publicClient.getTransactionReceipt({ hash });
    await suite.stack.waitFor(relayId);
    const record = await v4Record(relayId);
    const context = suite.stack.relayer!.context;
    const at = { blockNumber: receipt.blockNumber, transactionIndex: receipt.transactionIndex };
    expect((await readAttributionFacts(suite.f.publicClient, context, record, at)).routeRefused).to.equal(false);

    // The same order, its V4 hop one fee unit off: a key whose pool the PoolManager never initialised.
    const { order } = decodeGaslessCall(record.data);
    const actions = decodeRouteActions(order.params.actions).map((action) => (action.type === "swapV4" ? { ...action, fee: action.fee + 1 } : action));
    const unknownPool = { ...record, data: encodeSwapGaslessFromContract({ ...order, params: { ...order.params, actions: encodeRouteActions(actions) } } as Parameters<typeof encodeSwapGaslessFromContract>[0]) };
    const refused = await readAttributionFacts(suite.f.publicClient, context, unknownPool, at);
    expect([refused.routeRefused, refused.route, decideCause(refused).cause]).to.deep.equal([true, undefined, "operator"]);

    // The same hop as an exact-output order's SPLIT (shares of the output: never repriced), through the
    // pool the router reaches and then one fee unit off.
    const exactOutputSplit = (fee: number) => {
      const hops = decodeRouteActions(order.params.actions).flatMap((action) => (action.type === "swapV4" ? [{ ...action, fee }] : []));
      const actions = encodeRouteActions([{ type: "split", legs: [{ shareBps: 5_000, hops }, { shareBps: 5_000, hops }] }]);
      const { sellAmount, minBuyAmount, ...rest } = order.params as Extract<typeof order.params, { sellAmount: bigint }>;
      const params = { ...rest, maxSellAmount: sellAmount, buyAmount: minBuyAmount, actions };
      return { ...record, data: encodeFunctionData({ abi: gaslessExactOutputRouterAbi, functionName: "swapGaslessExactOutput", args: [params, order.taker, order.relayerFee, order.relayerFeeRecipient, order.nonce, order.signature] }) };
    };
    const v4Fee = decodeRouteActions(order.params.actions).find((action) => action.type === "swapV4")!.fee;
    const [reachedSplit, refusedSplit] = await Promise.all([readAttributionFacts(suite.f.publicClient, context, exactOutputSplit(v4Fee), at), readAttributionFacts(suite.f.publicClient, context, exactOutputSplit(v4Fee + 1), at)]);
    expect([reachedSplit.routeRefused, reachedSplit.route, refusedSplit.routeRefused, refusedSplit.route, decideCause(refusedSplit).cause]).to.deep.equal([false, undefined, true, undefined, "operator"]);

    // A router that names the PoolManager but predates v4Revision() (V4Quoter answers poolManager() alone:
    // revision 1) reaches the pool for an exact-input order and refuses it for an exact-output one, as the
    // router would (its V4 hops run forwards only); this build's router reaches it for both.
    const hops = routeHops(decodeRouteActions(order.params.actions), order.params.sellToken);
    const reached = async (router: Address, exactOutput: boolean) => (await readRouteVenues(suite.f.publicClient, router, hops, receipt.blockNumber, exactOutput, context.uniswapV4)).v4Pools.size;
    expect(await Promise.all([reached(suite.f.uniswapV4.v4Quoter, false), reached(suite.f.uniswapV4.v4Quoter, true), reached(record.router, true)])).to.deep.equal([1, 0, 1]);

    // No V4 contracts known (a manifest without uniswapV4): no fact either way about the V4 hop.
    const unread = await readAttributionFacts(suite.f.publicClient, { permit2: context.permit2 }, record, at);
    expect([unread.routeRefused, unread.route, unread.tradedBefore]).to.deep.equal([false, undefined, false]);
  });
});
