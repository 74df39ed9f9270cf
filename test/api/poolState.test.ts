import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { createPublicClient, custom, parseUnits, type Address, type EIP1193RequestFn, type PublicClient } from "viem";
import hre from "hardhat";
import { v2PoolsOf } from "../../sdk";
import { ChainHead } from "../../sdk/chain/chainHead";
import { PoolStateTracker, type PoolSnapshot } from "../../api/quote/market/poolState";
import { isV2Pool, type V2Pool } from "../../api/quote/venues/pricedPool";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { fundAccount } from "../../scripts/deploy/deployTestToken";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { chainControl, moveDevnetPool, reservesAt } from "../fixtures/poolMoves";

/** The V2 pair at `address` in `snapshot` (this tracker follows V2 pairs), or undefined. */
function v2At(snapshot: PoolSnapshot, address: Address): V2Pool | undefined {
  const pool = snapshot.pools.get(address);
  return pool !== undefined && isV2Pool(pool) ? pool : undefined;
}

/** The fixture's chain through a client that counts the JSON-RPC methods it is asked for. */
function countingClient(f: SettlementFixture): { client: PublicClient; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const request = (async (args: { method: string; params?: unknown }) => {
    calls.set(args.method, (calls.get(args.method) ?? 0) + 1);
    return hre.network.provider.request(args as { method: string; params?: unknown[] });
  }) as EIP1193RequestFn;
  const client = createPublicClient({ chain: f.publicClient.chain, transport: custom({ request }) }) as PublicClient;
  return { client, calls };
}

function trackerFor(f: SettlementFixture, supported: readonly Address[] = f.tokens.map((token) => token.address)) {
  const set = new Set(supported.map((token) => token.toLowerCase()));
  const unreadable: Address[][] = [];
  const tracker = new PoolStateTracker({
    factory: { address: f.contracts.uniswapV2Factory, feeBps: 30 },
    isSupported: (token) => set.has(token),
    observeReads: (_pools, failed) => unreadable.push([...failed.keys()]),
  });
  const { client, calls } = countingClient(f);
  const heads = new ChainHead(client);
  return { tracker, calls, snapshot: async () => tracker.at(client, await heads.fresh(), v2PoolsOf(f)) };
}

/** The snapshot is the chain's state at its block, and that block is on the chain now. */
async function expectOnChain(f: SettlementFixture, snapshot: PoolSnapshot): Promise<void> {
  const canonical = await f.publicClient.getBlock({ blockNumber: snapshot.block.number });
  expect(snapshot.block.hash, "the snapshot's block is on the chain").to.equal(canonical.hash);
  const actual = await reservesAt(f, snapshot.block.number);
  for (const [address, [reserve0, reserve1]] of actual) {
    const pool = v2At(snapshot, address);
    expect(pool, address).to.not.equal(undefined);
    expect([pool!.reserve0, pool!.reserve1], `reserves of ${address} at block ${snapshot.block.number}`).to.deep.equal([reserve0, reserve1]);
  }
}

describe("pool state followed from events", () => {
  it("follows other parties' swaps exactly, block by block and across gaps, with one eth_getLogs per new head and no pool reads", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot, calls } = trackerFor(f);
    await expectOnChain(f, await snapshot());
    // The first swap through each pool starts its price oracle (told from its Sync, see below).
    for (const [a, b, sell] of [["WETH", "USDC", "USDC"], ["USDC", "DAI", "DAI"], ["LINK", "WETH", "LINK"], ["WBTC", "USDC", "WBTC"]] as const) {
      await moveDevnetPool(f, a, b, sell, "100");
    }
    await expectOnChain(f, await snapshot());

    const moves = [
      ["WETH", "USDC", "WETH", "3"],
      ["WETH", "USDC", "USDC", "20000"],
      ["USDC", "DAI", "USDC", "5000"],
      ["LINK", "WETH", "WETH", "1"],
      ["WBTC", "USDC", "USDC", "7000"],
    ] as const;
    calls.clear();
    let heads = 0;
    for (const [index, [a, b, sell, amount]] of moves.entries()) {
      await moveDevnetPool(f, a, b, sell, amount);
      // Absorbed in ranges of two and four blocks (each move mines two).
      if (index % 2 === 1 || index === moves.length - 1) {
        await expectOnChain(f, await snapshot());
        heads++;
      }
    }
    // One block after the absorbed one: read by its hash alone.
    await chainControl.mine(1);
    await expectOnChain(f, await snapshot());
    heads++;
    expect(calls.get("eth_getLogs")).to.equal(heads);
    expect(calls.get("eth_call") ?? 0, "no pool is read directly once its oracle runs").to.equal(0);
  });

  it("tells from a pool's first Sync that its oracle started, as the chain says, without reading the pool", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot, calls } = trackerFor(f);
    const before = await snapshot();
    calls.clear();
    for (const [a, b, sell] of [["WETH", "USDC", "USDC"], ["USDC", "DAI", "DAI"], ["LINK", "WETH", "LINK"]] as const) {
      await moveDevnetPool(f, a, b, sell, "100");
      const after = await snapshot();
      await expectOnChain(f, after);
      const address = f.pool(a, b).toLowerCase() as Address;
      const cumulative = await f.publicClient.readContract({ address, abi: uniswapArtifacts.pair().abi, functionName: "price0CumulativeLast", blockNumber: after.block.number });
      expect(v2At(before, address)!.oracleStarted, `${a}/${b} before its first swap`).to.equal(false);
      expect(v2At(after, address)!.oracleStarted, `${a}/${b} after it`).to.equal(cumulative !== 0n);
    }
    expect(calls.get("eth_call") ?? 0, "no pool is read directly").to.equal(0);
  });

  it("a reorg (evm_revert, then other blocks) is followed: the snapshot is never a state that left the chain", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot } = trackerFor(f);
    const start = await snapshot();

    // Fork A: two swaps, absorbed. (A revert consumes its snapshot and every later one.)
    const origin = await chainControl.snapshot();
    const fork = await chainControl.snapshot();
    await moveDevnetPool(f, "WETH", "USDC", "WETH", "50");
    await moveDevnetPool(f, "USDC", "DAI", "USDC", "100000");
    const onA = await snapshot();
    await expectOnChain(f, onA);
    expect(v2At(onA, f.pool("WETH", "USDC").toLowerCase() as Address)!.reserve0).to.not.equal(v2At(start, f.pool("WETH", "USDC").toLowerCase() as Address)!.reserve0);

    // Fork B from the same parent: another pool moves, and the chain grows past fork A's height.
    await chainControl.revert(fork);
    await moveDevnetPool(f, "WBTC", "USDC", "WBTC", "2");
    await chainControl.mine(5);
    const onB = await snapshot();
    expect(onB.block.number > onA.block.number).to.equal(true);
    await expectOnChain(f, onB);
    expect(onB.pools.get((f.pool("WETH", "USDC").toLowerCase() as Address))).to.deep.equal(start.pools.get((f.pool("WETH", "USDC").toLowerCase() as Address)));

    // A reorg at the same height: same block number, another hash.
    const sameHeight = await chainControl.snapshot();
    await moveDevnetPool(f, "LINK", "WETH", "LINK", "1000");
    const onC = await snapshot();
    await chainControl.revert(sameHeight);
    await chainControl.mine(Number(onC.block.number - (await f.publicClient.getBlockNumber())));
    const onD = await snapshot();
    expect(onD.block.number).to.equal(onC.block.number);
    expect(onD.block.hash).to.not.equal(onC.block.hash);
    await expectOnChain(f, onD);

    // Back to a block already absorbed, with nothing mined after the revert.
    await chainControl.revert(origin);
    const back = await snapshot();
    expect(back.block.hash).to.equal(start.block.hash);
    await expectOnChain(f, back);
  });

  it("a pair the factory creates for two supported tokens is read once and joins the graph; one with an unsupported token does not", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot } = trackerFor(f);
    const before = await snapshot();
    const factory = uniswapArtifacts.factory();
    const create = async (a: Address, b: Address) => {
      await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.writeContract({ address: f.contracts.uniswapV2Factory, abi: factory.abi, functionName: "createPair", args: [a, b] }) });
      return ((await f.publicClient.readContract({ address: f.contracts.uniswapV2Factory, abi: factory.abi, functionName: "getPair", args: [a, b] })) as Address).toLowerCase() as Address;
    };
    const linkUsdc = await create(f.token("LINK"), f.token("USDC"));
    const stranger = await create(f.token("LINK"), "0x00000000000000000000000000000000000b0b0b");
    await fundAccount(hre, f, f.deployer, f, { account: linkUsdc, token: "LINK", amount: "1000" });
    await fundAccount(hre, f, f.deployer, f, { account: linkUsdc, token: "USDC", amount: "15000" });
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.deployer.writeContract({ address: linkUsdc, abi: uniswapArtifacts.pair().abi, functionName: "mint", args: [f.deployer.account.address] }),
    });
    const after = await snapshot();
    expect(after.pools.size).to.equal(before.pools.size + 1);
    const created = v2At(after, linkUsdc)!;
    expect([created.reserve0, created.reserve1].sort()).to.deep.equal([parseUnits("1000", 18), parseUnits("15000", 6)].sort());
    expect(after.graph.between(f.token("LINK").toLowerCase() as Address, f.token("USDC").toLowerCase() as Address)).to.deep.equal([linkUsdc]);
    expect(after.pools.has(stranger)).to.equal(false);
    // Its later swaps arrive as events like any other pool's.
    await moveDevnetPool({ ...f, pool: () => linkUsdc } as SettlementFixture, "LINK", "USDC", "LINK", "10");
    const moved = await snapshot();
    expect(v2At(moved, linkUsdc)!.reserve0 === created.reserve0).to.equal(false);
  });
});
