import { expect } from "chai";
import hre from "hardhat";
import { mine } from "@nomicfoundation/hardhat-network-helpers";
import { createPublicClient, erc20Abi, http, parseUnits, type Hex, type LocalAccount, type PublicClient } from "viem";
import type { RelayJson } from "../../sdk";
import { AttributionReadError } from "../../relayer/attribution/readFailure";
import { readAttributionFacts } from "../../relayer/attribution/readAttributionFacts";
import type { AttributionFacts } from "../../relayer/attribution/attributionFacts";
import type { BlockPosition } from "../../relayer/attribution/pairStates";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { fundedTakers, gaslessSuite, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { isCallTo, startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import { FRONT_TIP } from "../fixtures/sandwich";
import { balanceOf } from "../fixtures/testRoute";
import { onlySources } from "../fixtures/onlySources";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });
const json = (value: unknown) => JSON.stringify(value, (_, inner) => (typeof inner === "bigint" ? inner.toString() : inner));

/**
 * Review finding (a): repricing a failed relay's V3 and propAMM hops swallowed every error, so a read
 * the node failed (a cut connection, a timeout) left the route unpriced, or read the taker's balance as
 * empty, and decided a cause on that: the operator's or the taker's. A failed read is no fact: the
 * attribution is deferred (nothing written, the relay still followed) and decided once the node
 * answers. A real chain (Hardhat) served over HTTP, behind a real proxy that cuts chosen requests.
 */
describe("a chain read that fails while attributing a failed relay defers the attribution and never charges anyone on it (relayer, a real chain behind a proxy)", function () {
  this.timeout(240_000);
  const suite = gaslessSuite();
  let chain: ChainServer;
  let proxy: RpcProxy;
  let client: PublicClient;
  beforeEach(async () => {
    chain = await startChainServer(hre, "127.0.0.1", 0);
    proxy = await startRpcProxy(chain.url);
    client = createPublicClient({ transport: http(proxy.url, { retryCount: 0, timeout: 10_000 }) }) as PublicClient;
  });
  afterEach(async () => {
    await setAutomine(true);
    await suite.stack?.close();
    suite.stack = undefined;
    await proxy.close();
    await chain.close();
  });

  /**
   * A relay of `taker` over `sources` that mines and reverts because the taker moves its whole USDC
   * balance away with a higher tip in the same block: its facts are the taker's (funds short), its
   * route repriced at its venues. `whilePending` runs once its swap is pending, before the taker's
   * transfer. Returns the relay and where it failed.
   */
  async function failedRelay(stack: GaslessStack, taker: LocalAccount, sources: Record<string, string>, whilePending: () => void = () => {}): Promise<{ relayId: string; at: BlockPosition }> {
    const { status, body } = await stack.gaslessQuote(taker.address, { sell_token: suite.f.token("USDC"), buy_token: suite.f.token("WETH"), sell_amount: parseUnits("1000", 6), ...sources });
    expect(status, json(body)).to.equal(200);
    await setAutomine(false);
    const submitted = await stack.submit({ quote_id: body!.quote_id, signature: await stack.sign(body as never, taker) });
    expect(submitted.status, json(submitted.body)).to.equal(202);
    const relayId = submitted.body.relay_id as string;
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    whilePending();
    const wallet = await hre.viem.getWalletClient(taker.address, { account: taker });
    const block = await suite.f.publicClient.getBlock();
    const balance = await balanceOf(suite.f, suite.f.token("USDC"), taker.address);
    await wallet.writeContract({ address: suite.f.token("USDC"), abi: erc20Abi, functionName: "transfer", args: [suite.f.stranger.account.address, balance], gas: 100_000n, maxFeePerGas: (block.baseFeePerGas ?? 0n) * 3n + FRONT_TIP, maxPriorityFeePerGas: FRONT_TIP });
    return { relayId, at: await minedAt(pending.tx_hash as Hex) };
  }

  /** The stack's unpaid-gas ledger for its integrator: [cause, kind, entries] per total. */
  async function ledgerOf(stack: GaslessStack) {
    return (await stack.relayer!.context.store.unpaidGasTotals({ integratorId: stack.api.integratorId })).map((total) => [total.cause, total.kind, total.entries]);
  }

  /** Mines the pending block and says where the relay's swap reverted in it. */
  async function minedAt(hash: Hex): Promise<BlockPosition> {
    await mine(1);
    const receipt = await suite.f.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).to.equal("reverted");
    return { blockNumber: receipt.blockNumber, transactionIndex: receipt.transactionIndex };
  }

  it("each contract and each kind of read the attribution makes, cut at the node, throws AttributionReadError: never facts other than the chain's (a propAMM route and a V3 route)", async () => {
    // The relayer itself is not attributing through the proxy here: only this test's reads are.
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const stack = suite.stack;
    const takers = await fundedTakers(suite.f, 2);
    const relays = [await failedRelay(stack, takers[0]!, onlySources(stack.manifest, "dev-propamm")), await failedRelay(stack, takers[1]!, onlySources(stack.manifest, "uniswap-v3"))];
    await setAutomine(true);
    for (const { relayId, at } of relays) {
      await stack.waitFor(relayId);
      const record = (await stack.relayer!.context.store.getRelay(relayId))!;
      const permit2 = stack.relayer!.context.permit2;
      const seenBefore = proxy.calls.length;
      const facts: AttributionFacts = await readAttributionFacts(client, { permit2 }, record, at);
      expect(facts.route, `the route is repriced: ${json(facts)}`).to.not.equal(undefined);
      expect([facts.fundsShort, facts.takerPullRefused]).to.deep.equal([true, true]);
      const reads = proxy.calls.slice(seenBefore);
      const targets = [...new Set(reads.filter((call) => call.method === "eth_call").map((call) => ((call.params[0] as { to: string }).to ?? "").toLowerCase()))];
      const methods = [...new Set(reads.map((call) => call.method).filter((method) => method !== "eth_call" && method !== "eth_chainId"))];
      // The sell token (balance, allowance), the router (gate, venue table), the registry, Permit2, and the venues.
      expect(targets).to.include.members([suite.f.token("USDC").toLowerCase(), record.router.toLowerCase()]);
      expect(methods).to.include.members(["eth_getCode", "eth_getLogs"]);
      const cuts: [string, (call: { method: string; params: unknown[] }) => boolean][] = [
        ...targets.map((target) => [`eth_call to ${target}`, (call: { method: string; params: unknown[] }) => isCallTo(call, target)] as [string, (call: { method: string; params: unknown[] }) => boolean]),
        ...methods.map((method) => [method, (call: { method: string; params: unknown[] }) => call.method === method] as [string, (call: { method: string; params: unknown[] }) => boolean]),
      ];
      for (const [label, cut] of cuts) {
        proxy.cutWhen(cut);
        const cutBefore = proxy.cutCount();
        // A client of its own per cut: nothing of an earlier cut's read (viem's in-flight dedupe) carries over.
        const fresh = createPublicClient({ transport: http(proxy.url, { retryCount: 0, timeout: 10_000 }) }) as PublicClient;
        const outcome = await readAttributionFacts(fresh, { permit2 }, record, at).then(
          (read) => ({ read }),
          (error: unknown) => ({ error }),
        );
        // The failure may be seen through another request of the same read first (Promise.all), so the cut's own count may trail it.
        await waitUntil(() => proxy.cutCount() > cutBefore);
        proxy.allow();
        expect("error" in outcome && outcome.error instanceof AttributionReadError, `${label} cut: ${"read" in outcome ? json(outcome.read) : String(outcome.error)}`).to.equal(true);
      }
      // Once the node answers again, the same facts.
      expect(json(await readAttributionFacts(client, { permit2 }, record, at))).to.equal(json(facts));
    }
  });

  it("the relayer leaves a reverted relay unattributed and uncharged while the taker's balance cannot be read, and charges it exactly once when it can (a propAMM relay)", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerTransport: http(proxy.url, { retryCount: 0, timeout: 10_000 }) });
    const stack = suite.stack;
    const [taker] = await fundedTakers(suite.f, 1);
    const usdc = suite.f.token("USDC");
    // Once the swap is pending, the node drops every read of the sell token (the balance and allowance
    // reads attribution makes), as a node under load drops requests.
    const { relayId } = await failedRelay(stack, taker!, onlySources(stack.manifest, "dev-propamm"), () => proxy.cutWhen((call) => isCallTo(call, usdc)));
    await setAutomine(true);
    // Three attempts, each at a new block: every one deferred, nothing written, the relay still followed.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const cut = proxy.cutCount();
      await waitUntil(() => proxy.cutCount() > cut);
      expect(await ledgerOf(stack), `attempt ${attempt}`).to.deep.equal([]);
      expect(((await stack.status(relayId)).body as RelayJson).status, `attempt ${attempt}`).to.equal("submitted");
      await mine(1);
    }
    proxy.allow();
    const done = await stack.waitFor(relayId);
    expect([done.status, done.reason], json(done)).to.deep.equal(["failed", "reverted"]);
    expect(await ledgerOf(stack)).to.deep.equal([["taker", "reverted_swap", 1]]);
  });

  it("a read the node never answers defers the attribution only for RELAYER_ATTRIBUTION_PATIENCE_BLOCKS blocks: then the relay ends failed as unattributable, counted against nobody, once", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerTransport: http(proxy.url, { retryCount: 0, timeout: 10_000 }), relayerEnv: { RELAYER_ATTRIBUTION_PATIENCE_BLOCKS: "4" } });
    const stack = suite.stack;
    const [taker] = await fundedTakers(suite.f, 1);
    const usdc = suite.f.token("USDC");
    // Once the swap is pending, the node never answers a read of the sell token (as a node that pruned that state).
    const { relayId } = await failedRelay(stack, taker!, onlySources(stack.manifest, "dev-propamm"), () => proxy.cutWhen((call) => isCallTo(call, usdc)));
    await setAutomine(true);
    // Within the window: deferred, nothing written.
    const cut = proxy.cutCount();
    await waitUntil(() => proxy.cutCount() > cut);
    expect(await ledgerOf(stack)).to.deep.equal([]);
    expect(((await stack.status(relayId)).body as RelayJson).status).to.equal("submitted");
    await mine(4);
    const done = await stack.waitFor(relayId);
    expect([done.status, done.reason], json(done)).to.deep.equal(["failed", "reverted"]);
    expect(done.error).to.match(/unattributable: the chain reads attribution needs kept failing for 4 blocks/);
    expect(await ledgerOf(stack)).to.deep.equal([["operator", "reverted_swap", 1]]);
  });
});

/** Polls `done` (a cheap in-process check) until it holds, for at most 20 s. */
async function waitUntil(done: () => boolean): Promise<void> {
  const until = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > until) throw new Error("timed out waiting for the relayer's next attempt");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
