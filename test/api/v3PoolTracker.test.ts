import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import hre from "hardhat";
import { createPublicClient, custom, type Address, type EIP1193RequestFn, type PublicClient } from "viem";
import { alignedTick, createV3Pool, mintV3Position, sqrtPriceX96Of } from "../../scripts/deploy/uniswapV3";
import { quoteConcentratedExactInput, quoteConcentratedExactOutput } from "../../sdk";
import { ChainHead } from "../../sdk/chain/chainHead";
import { V3PoolTracker, type V3PoolSnapshot } from "../../api/quote/venues/uniswapV3/v3PoolTracker";
import { chainControl } from "../fixtures/poolMoves";
import { movePrice, readWholePool, slot0, v3PoolsFixture, type V3PoolsFixture, type V3TestPool } from "../fixtures/v3Pools";

/** A tracker over the fixture's pools, through a client that counts the JSON-RPC methods it is asked for. */
function trackerFor(f: V3PoolsFixture, wordsEachSide = 20, options: Omit<ConstructorParameters<typeof V3PoolTracker>[0] & object, "wordsEachSide"> = {}) {
  const calls = new Map<string, number>();
  const request = (async (args: { method: string; params?: unknown }) => {
    calls.set(args.method, (calls.get(args.method) ?? 0) + 1);
    return hre.network.provider.request(args as { method: string; params?: unknown[] });
  }) as EIP1193RequestFn;
  const client = createPublicClient({ chain: f.publicClient.chain, transport: custom({ request }) }) as PublicClient;
  const tracker = new V3PoolTracker({ wordsEachSide, ...options });
  const heads = new ChainHead(client);
  return { tracker, calls, snapshot: async () => tracker.at(client, await heads.fresh(), f.pools) };
}

/** Every pool of the snapshot is the pool on chain at the snapshot's block (within the ticks it knows), and prices the same. */
async function expectOnChain(f: V3PoolsFixture, snapshot: V3PoolSnapshot): Promise<void> {
  const canonical = await f.publicClient.getBlock({ blockNumber: snapshot.block.number });
  expect(snapshot.block.hash, "the snapshot's block is on the chain").to.equal(canonical.hash);
  for (const pool of f.pools) {
    const tracked = snapshot.pools.get(pool.address.toLowerCase() as Address)!;
    const whole = await readWholePool(f, pool, snapshot.block.number);
    const range = tracked.tickRange!;
    const known = { ...whole, tickRange: range, ticks: whole.ticks.filter((tick) => tick.index >= range.lower && tick.index <= range.upper) };
    expect(tracked, `${pool.name} at block ${snapshot.block.number}`).to.deep.equal(known);
    for (const zeroForOne of [true, false]) {
      for (const [ours, theirs] of [
        [quoteConcentratedExactInput(tracked, zeroForOne, 10n ** 20n), quoteConcentratedExactInput(whole, zeroForOne, 10n ** 20n)],
        [quoteConcentratedExactOutput(tracked, zeroForOne, 10n ** 8n), quoteConcentratedExactOutput(whole, zeroForOne, 10n ** 8n)],
      ]) {
        // What the pool fills is priced identically; what it cannot fill is refused either way.
        if (theirs!.filled) expect(ours).to.deep.equal(theirs);
        else expect(ours!.filled).to.equal(false);
      }
    }
  }
}


describe("V3 pool tracker", function () {
  this.timeout(300_000);

  it("follows swaps and new positions block by block and across gaps, with one eth_getLogs per new head and no pool reads", async () => {
    const f = await loadFixture(v3PoolsFixture);
    const { snapshot, calls } = trackerFor(f);
    await expectOnChain(f, await snapshot());
    calls.clear();
    let heads = 0;
    for (const [index, pool] of [...f.pools, ...f.pools].entries()) {
      await movePrice(f, pool, index % 2 === 0, 9);
      if (index === 2) {
        const center = (await slot0(f, pool)).tick - (((await slot0(f, pool)).tick % pool.tickSpacing) + pool.tickSpacing) % pool.tickSpacing;
        await mintV3Position(f.clients, f.deployer, f.v3, { tokenA: pool.token0, tokenB: pool.token1, fee: pool.fee, tickLower: center - 2 * pool.tickSpacing, tickUpper: center + 5 * pool.tickSpacing, amountA: 10n ** 20n, amountB: 10n ** 20n });
      }
      // Absorbed after one block (by hash) or several (by range).
      if (index % 2 === 1 || index === 2) {
        const taken = await snapshot();
        heads++;
        await expectOnChain(f, taken);
      }
    }
    expect(calls.get("eth_getLogs")).to.equal(heads);
    expect(calls.get("eth_call") ?? 0, "no pool is read directly").to.equal(0);
  });

  it("a reorg (evm_revert, then other blocks) is followed: the pools touched on the abandoned side are read again and the snapshot is the new chain's", async () => {
    const f = await loadFixture(v3PoolsFixture);
    const { snapshot } = trackerFor(f);
    await snapshot();
    const fork = await chainControl.snapshot();
    await movePrice(f, f.pools[0]!, true, 20);
    await movePrice(f, f.pools[1]!, false, 30);
    const onA = await snapshot();
    await expectOnChain(f, onA);

    await chainControl.revert(fork);
    await movePrice(f, f.pools[2]!, true, 15);
    await chainControl.mine(3);
    const onB = await snapshot();
    expect(onB.block.number > onA.block.number).to.equal(true);
    await expectOnChain(f, onB);

    // Back below fork A's height (a head behind the absorbed block).
    const again = await chainControl.snapshot();
    await movePrice(f, f.pools[0]!, false, 5);
    await snapshot();
    await chainControl.revert(again);
    await chainControl.mine(1);
    await expectOnChain(f, await snapshot());
  });

  it("re-reads a pool whose price comes within a bitmap word of the ticks it knows, so swaps are not refused for leaving a stale window", async () => {
    const f = await loadFixture(v3PoolsFixture);
    const { snapshot, calls } = trackerFor(f, 2);
    const pool = f.pools[1]!; // spacing 1: a word is 256 ticks
    const key = pool.address.toLowerCase() as Address;
    const before = (await snapshot()).pools.get(key)!;
    calls.clear();
    await movePrice(f, pool, false, 600);
    const after = await snapshot();
    const state = after.pools.get(key)!;
    expect(state.tick - before.tick > 256, "the price left its word").to.equal(true);
    expect(calls.get("eth_call") ?? 0, "the pool was read again").to.be.greaterThan(0);
    expect(state.tickRange!.lower <= state.tick - 256 && state.tickRange!.upper >= state.tick + 256, "the known ticks are around the new price").to.equal(true);
    await expectOnChain(f, after);
  });

  it("a pool the followed factory creates for two supported tokens is read, then followed from its events, under its venue's name; one with an unsupported token is not", async () => {
    const f = await loadFixture(v3PoolsFixture);
    // A is in both the A/B and the A/C pools; C, the 6-decimal token, is left unsupported here.
    const [ab, ac] = [f.pools[0]!, f.pools[2]!];
    const a = [ab.token0, ab.token1].find((token) => token === ac.token0 || token === ac.token1)!;
    const b = ab.token0 === a ? ab.token1 : ab.token0;
    const c = ac.token0 === a ? ac.token1 : ac.token0;
    const unsupported = c;
    const { snapshot, tracker } = trackerFor(f, 20, { factories: [{ address: f.v3.factory, source: "uniswap-v3" }], isSupported: (token) => token !== unsupported.toLowerCase() });
    await snapshot();
    const price = sqrtPriceX96Of(3n, 2n);
    const created = await createV3Pool(f.clients, f.deployer, f.v3, a, b, 500, price);
    const center = alignedTick(price, 10);
    await mintV3Position(f.clients, f.deployer, f.v3, { tokenA: a, tokenB: b, fee: 500, tickLower: center - 100, tickUpper: center + 200, amountA: 10n ** 20n, amountB: 10n ** 20n });
    const refused = await createV3Pool(f.clients, f.deployer, f.v3, a, c, 3000, price);
    const after = await snapshot();
    const key = created.toLowerCase() as Address;
    expect(tracker.createdPools.map((pool) => [pool.address, pool.source])).to.deep.equal([[key, "uniswap-v3"]]);
    expect(after.pools.has(refused.toLowerCase() as Address), "a pool of an unsupported token").to.equal(false);
    const state = after.pools.get(key)!;
    expect(state.liquidity > 0n, "read after its first position").to.equal(true);
    // Followed from then on: a swap through it is absorbed from its events.
    const pool: V3TestPool = { name: "created A/B 0.05%", address: created, token0: state.token0, token1: state.token1, fee: 500, tickSpacing: 10, decimals0: 18, decimals1: 18, minTick: center - 100, maxTick: center + 200 };
    await movePrice(f, pool, true, 7);
    const moved = (await snapshot()).pools.get(key)!;
    const whole = await readWholePool(f, pool);
    expect({ ...moved, tickRange: undefined }).to.deep.equal({ ...whole, tickRange: undefined });
  });
});
