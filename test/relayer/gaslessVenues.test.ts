import { expect } from "chai";
import hre from "hardhat";
import { mine } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseUnits, type Address, type Hex, type LocalAccount } from "viem";
import { decodeGaslessCall, decodeRouteActions, patchSignature, routeHops, type RelayJson } from "../../sdk";
import { decideCause } from "../../relayer/attribution/decideCause";
import { readAttributionFacts } from "../../relayer/attribution/readAttributionFacts";
import { fundedTakers, gaslessSuite, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { FRONT_TIP, frontRunInVictimBlock, fundStranger } from "../fixtures/sandwich";
import { balanceOf } from "../fixtures/testRoute";
import { onlySources } from "../fixtures/onlySources";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

type Hop = { source: string; pool: string };
type QuoteBody = Record<string, any>;

const V3_ONLY = (stack: GaslessStack) => onlySources(stack.manifest, "uniswap-v3");
const PROPAMM_ONLY = (stack: GaslessStack) => onlySources(stack.manifest, "dev-propamm");
const sourcesOf = (body: QuoteBody) => new Set((body.route.hops as Hop[]).map((hop) => hop.source));

/**
 * Issue 30: gasless quotes route over every venue now that the relayer reprices a failed relay's V3
 * and propAMM hops from the chain at its block. Real chain (Hardhat), the relayer and the API in-process.
 */
describe("gasless quotes over V3 pools and propAMMs: relayed, batched, and a failed relay attributed (relayer, API and a real chain)", function () {
  this.timeout(240_000);
  const suite = gaslessSuite();

  async function quote(taker: LocalAccount, params: Record<string, string | bigint | number>): Promise<QuoteBody> {
    const { status, body } = await suite.stack!.gaslessQuote(taker.address, { sell_token: suite.f.token("USDC"), buy_token: suite.f.token("WETH"), ...params });
    expect(status, JSON.stringify(body)).to.equal(200);
    return body!;
  }

  async function submit(taker: LocalAccount, body: QuoteBody): Promise<string> {
    const submitted = await suite.stack!.submit({ quote_id: body.quote_id, signature: await suite.stack!.sign(body as never, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    return submitted.body.relay_id as string;
  }

  it("a gasless quote with nothing excluded may take any venue; a V3-only and a propAMM-only gasless quote each relay alone and settle, paying the quoted amount", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const [v3Taker, propAmmTaker, anyTaker] = await fundedTakers(suite.f, 3);
    // Nothing excluded: served (before, a gasless route was cut to V2 whatever was asked).
    const any = await quote(anyTaker!, { excluded_sources: "", sell_amount: parseUnits("150000", 6) });
    expect(sourcesOf(any).size, JSON.stringify(any.route)).to.be.greaterThan(0);
    for (const [taker, params, source] of [
      [v3Taker!, V3_ONLY(suite.stack), "uniswap-v3"],
      [propAmmTaker!, PROPAMM_ONLY(suite.stack), "dev-propamm"],
    ] as const) {
      const body = await quote(taker, { ...params, sell_amount: parseUnits("1000", 6) });
      expect([...sourcesOf(body)], JSON.stringify(body.route)).to.deep.equal([source]);
      const before = await balanceOf(suite.f, suite.f.token("WETH"), taker.address);
      const relay = await suite.stack.waitFor(await submit(taker, body));
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      expect((await balanceOf(suite.f, suite.f.token("WETH"), taker.address)) - before, source).to.equal(BigInt(body.buy_amount));
    }
  });

  it("a V3-only, a propAMM-only and an any-venue gasless relay submitted together settle in one batch transaction", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerEnv: { RELAYER_BATCH_WAIT_MS: "1500" } });
    const takers = await fundedTakers(suite.f, 3);
    const params = [V3_ONLY(suite.stack), PROPAMM_ONLY(suite.stack), { excluded_sources: "" }];
    const quotes = await Promise.all(takers.map((taker, index) => quote(taker, { ...params[index]!, sell_amount: parseUnits("500", 6) })));
    expect(sourcesOf(quotes[0]!).has("uniswap-v3") && sourcesOf(quotes[1]!).has("dev-propamm")).to.equal(true);
    const relayIds = await Promise.all(takers.map((taker, index) => submit(taker, quotes[index]!)));
    const done = await Promise.all(relayIds.map((relayId) => suite.stack!.waitFor(relayId)));
    expect(done.map((relay) => relay.status), JSON.stringify(done)).to.deep.equal(["confirmed", "confirmed", "confirmed"]);
    expect(new Set(done.map((relay) => relay.tx_hash)).size, "one transaction").to.equal(1);
    expect(done.every((relay) => relay.batch?.size === 3)).to.equal(true);
  });

  /** Submits `body` for `taker` with automine off and waits until the relayer's swap is pending. */
  async function pendingRelay(taker: LocalAccount, body: QuoteBody): Promise<{ relayId: string; hash: Hex }> {
    await setAutomine(false);
    const relayId = await submit(taker, body);
    const pending = await suite.stack!.waitFor(relayId, (relay) => relay.status === "submitted");
    return { relayId, hash: pending.tx_hash as Hex };
  }

  const ledger = async () => (await suite.stack!.relayer!.context.store.unpaidGasTotals({ integratorId: suite.stack!.api.integratorId })).map((total) => [total.cause, total.kind, total.entries]);

  it("a third party's trade through the V3 pool, mined before a V3-only relay in its block, is the market's: repriced through the pool's own Swap event (met below the minimum, the parent above it), never the taker's", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const [victim] = await fundedTakers(suite.f, 1);
    // The stranger trades the same pools through the API's own taker route (Permit2), a large sell.
    await fundStranger(suite.f, suite.f.token("USDC"), parseUnits("10000000", 6));
    const stranger = suite.f.signerOf(suite.f.stranger.account.address);
    await suite.f.publicClient.waitForTransactionReceipt({ hash: await suite.f.stranger.writeContract({ address: suite.f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [suite.f.contracts.permit2, maxUint256] }) });
    const front = await suite.stack.api.quote({ sell_token: suite.f.token("USDC"), buy_token: suite.f.token("WETH"), sell_amount: parseUnits("300000", 6), taker: stranger.address, ...V3_ONLY(suite.stack) });
    expect(front.status, JSON.stringify(front.body)).to.equal(200);
    const body = await quote(victim!, { ...V3_ONLY(suite.stack), sell_amount: parseUnits("1000", 6), slippage_bps: 10 });
    // The pools the victim's route trades are among the front-run's.
    const victimPools = new Set((body.route.hops as Hop[]).map((hop) => hop.pool.toLowerCase()));
    expect((front.body!.route.hops as Hop[]).some((hop) => victimPools.has(hop.pool.toLowerCase()))).to.equal(true);
    const { relayId, hash } = await pendingRelay(victim!, body);
    const data = patchSignature(front.body!.tx.data as Hex, front.body!.tx.signature_offset, await stranger.signTypedData(front.body!.permit2));
    const [frontReceipt, victimReceipt] = await frontRunInVictimBlock(suite.f, { to: front.body!.tx.to as Address, data }, hash);
    expect([frontReceipt.status, victimReceipt.status, frontReceipt.blockNumber, frontReceipt.transactionIndex < victimReceipt.transactionIndex]).to.deep.equal(["success", "reverted", victimReceipt.blockNumber, true]);
    const done: RelayJson = await suite.stack.waitFor(relayId);
    expect(done.status, JSON.stringify(done)).to.be.oneOf(["failed", "confirmed"]);
    expect(await ledger()).to.deep.equal([["market", "reverted_swap", 1]]);
    // The facts behind it: the V3 route repriced at the parent and through the front-run's Swap events.
    const record = (await suite.stack.relayer!.context.store.getRelay(relayId))!;
    const call = decodeGaslessCall(record.data);
    expect(routeHops(decodeRouteActions(call.order.params.actions), call.order.params.sellToken).every(({ hop }) => hop.type === "swapV3")).to.equal(true);
    const at = { blockNumber: victimReceipt.blockNumber, transactionIndex: victimReceipt.transactionIndex };
    const facts = await readAttributionFacts(suite.f.publicClient, suite.stack.relayer!.context, record, at);
    expect(facts.route, "a V3 route is repriced").to.not.equal(undefined);
    expect(facts.route!.met < facts.route!.minimum && facts.route!.atParent >= facts.route!.minimum, JSON.stringify(facts, (_, value) => (typeof value === "bigint" ? value.toString() : value))).to.equal(true);
    expect(facts.tradedBefore).to.equal(true);
    expect(decideCause(facts).cause).to.equal("market");
    // The state met, followed through the front-run's events, is the chain's own: the pools as the block
    // ended (the victim reverted; nothing after it in the block touched them) price the route the same.
    await mine(1);
    const after = await readAttributionFacts(suite.f.publicClient, suite.stack.relayer!.context, record, { blockNumber: victimReceipt.blockNumber + 1n, transactionIndex: 0 });
    expect(after.route!.atParent).to.equal(facts.route!.met);
    // At the block's first transaction, before the front-run: the pool as at the parent, the route fills: nothing puts a miss on the market.
    const first = await readAttributionFacts(suite.f.publicClient, suite.stack.relayer!.context, record, { ...at, transactionIndex: 0 });
    expect([first.route!.met, first.tradedBefore]).to.deep.equal([first.route!.atParent, false]);
  });

  it("a propAMM-only relay: the taker emptying its balance in the block is the taker's (the route repriced by getAmountOut still fills); the operator's price change before it in the block is the market's, never the taker's", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const [victim, second] = await fundedTakers(suite.f, 2);
    const propAmm = suite.stack.manifest.propAmms![0]!;
    const dev = await hre.viem.getContractAt("DevPropAmm", propAmm.address, { client: { public: suite.f.publicClient, wallet: suite.f.deployer } });
    expect((await dev.read.owner()).toLowerCase()).to.equal(suite.f.deployer.account.address.toLowerCase());

    // 1. The taker moves its USDC away with a higher tip: mined first, the relay reverts.
    const body = await quote(victim!, { ...PROPAMM_ONLY(suite.stack), sell_amount: parseUnits("1000", 6) });
    const { relayId, hash } = await pendingRelay(victim!, body);
    const wallet = await hre.viem.getWalletClient(victim!.address, { account: victim! });
    const block = await suite.f.publicClient.getBlock();
    const balance = await balanceOf(suite.f, suite.f.token("USDC"), victim!.address);
    await wallet.writeContract({ address: suite.f.token("USDC"), abi: erc20Abi, functionName: "transfer", args: [suite.f.stranger.account.address, balance], gas: 100_000n, maxFeePerGas: (block.baseFeePerGas ?? 0n) * 3n + FRONT_TIP, maxPriorityFeePerGas: FRONT_TIP });
    await mine(1);
    await setAutomine(true);
    const receipt = await suite.f.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).to.equal("reverted");
    const done: RelayJson = await suite.stack.waitFor(relayId);
    expect(done.status, JSON.stringify(done)).to.equal("failed");
    const record = (await suite.stack.relayer!.context.store.getRelay(relayId))!;
    const facts = await readAttributionFacts(suite.f.publicClient, suite.stack.relayer!.context, record, { blockNumber: receipt.blockNumber, transactionIndex: receipt.transactionIndex });
    expect(facts.route, "a propAMM route is repriced").to.not.equal(undefined);
    expect(facts.route!.met >= facts.route!.minimum && facts.route!.met === facts.route!.atParent).to.equal(true);
    expect([facts.fundsShort, facts.tradedBefore, decideCause(facts).cause]).to.deep.equal([true, false, "taker"]);
    expect(await ledger()).to.deep.equal([["taker", "reverted_swap", 1]]);

    // 2. The operator lowers the propAMM's price by 5 % before the next relay in its block: the market's.
    const next = await quote(second!, { ...PROPAMM_ONLY(suite.stack), sell_amount: parseUnits("1000", 6) });
    const pending = await pendingRelay(second!, next);
    const [price, spread] = await Promise.all([dev.read.price(), dev.read.spreadBps()]);
    const now = await suite.f.publicClient.getBlock();
    const zeroForOne = propAmm.token0.toLowerCase() === suite.f.token("USDC").toLowerCase();
    // Selling USDC buys less WETH: a lower price when USDC is token0, a higher one when it is token1.
    const moved = zeroForOne ? (price * 95n) / 100n : (price * 105n) / 100n;
    const setHash = await dev.write.setPrice([moved, spread], { gas: 200_000n, maxFeePerGas: (now.baseFeePerGas ?? 0n) * 3n + FRONT_TIP, maxPriorityFeePerGas: FRONT_TIP });
    await mine(1);
    await setAutomine(true);
    const [setReceipt, victimReceipt] = await Promise.all([suite.f.publicClient.getTransactionReceipt({ hash: setHash }), suite.f.publicClient.getTransactionReceipt({ hash: pending.hash })]);
    expect([setReceipt.blockNumber, setReceipt.transactionIndex < victimReceipt.transactionIndex, victimReceipt.status]).to.deep.equal([victimReceipt.blockNumber, true, "reverted"]);
    await suite.stack.waitFor(pending.relayId);
    const moveFacts = await readAttributionFacts(suite.f.publicClient, suite.stack.relayer!.context, (await suite.stack.relayer!.context.store.getRelay(pending.relayId))!, {
      blockNumber: victimReceipt.blockNumber,
      transactionIndex: victimReceipt.transactionIndex,
    });
    expect([moveFacts.route, moveFacts.tradedBefore, decideCause(moveFacts).cause]).to.deep.equal([undefined, true, "market"]);
    // The ledger gains a market entry; the integrator's charge is still the first taker's failure alone.
    expect(await ledger()).to.have.deep.members([
      ["taker", "reverted_swap", 1],
      ["market", "reverted_swap", 1],
    ]);
    expect((await suite.stack.relayer!.context.store.unpaidGasCharged({ taker: second!.address, integratorId: suite.stack.api.integratorId, since: new Date(0) })).taker).to.equal(0n);
  });
});
