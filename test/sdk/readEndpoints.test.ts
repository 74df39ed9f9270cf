import { expect } from "chai";
import hre from "hardhat";
import { createPublicClient, type PublicClient } from "viem";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { endpointLabel } from "../../sdk/rpc/endpointLabel";
import { isNoAnswer } from "../../sdk/rpc/noAnswer";
import { ReadEndpoints, type ReadEndpointState } from "../../sdk/rpc/readEndpoints";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";

/**
 * The read endpoints behind one viem transport, over real HTTP: proxies in front of one Hardhat chain
 * play a node on another chain, a node that cuts connections, and healthy ones.
 */
describe("ReadEndpoints (sdk/rpc/readEndpoints.ts)", function () {
  this.timeout(60_000);
  let chain: ChainServer;
  let proxies: RpcProxy[];
  let endpoints: ReadEndpoints | undefined;
  const failovers: string[] = [];
  let ranked: readonly ReadEndpointState[] = [];
  beforeEach(async () => {
    chain = await startChainServer(hre, "127.0.0.1", 0);
    proxies = await Promise.all([startRpcProxy(chain.url), startRpcProxy(chain.url), startRpcProxy(chain.url)]);
    failovers.length = 0;
  });
  afterEach(async () => {
    await endpoints?.stop();
    endpoints = undefined;
    for (const proxy of proxies) await proxy.close();
    await chain.close();
  });
  const open = (urls: string[]): PublicClient => {
    endpoints = new ReadEndpoints({
      urls,
      chainId: 4663,
      maxLagBlocks: 3,
      probeMs: 60_000,
      timeoutMs: 5_000,
      observer: { request: () => undefined, ranked: (states) => (ranked = states), failover: (endpoint) => failovers.push(endpoint) },
    });
    return createPublicClient({ transport: endpoints.transport() });
  };
  const label = (proxy: RpcProxy) => endpointLabel(proxy.url);
  /** The first two proxies as [selected, other]: the probe ranks by measured latency, so on a loaded machine either may come out selected. */
  const bySelection = (): [RpcProxy, RpcProxy] => {
    const [a, b] = proxies as [RpcProxy, RpcProxy];
    return endpoints!.selected === label(a) ? [a, b] : [b, a];
  };

  it("never reads from an endpoint that serves another chain, even when it is listed first", async () => {
    const [otherChain, healthy] = proxies as [RpcProxy, RpcProxy];
    otherChain.answer("eth_chainId", "0x1");
    const client = open([otherChain.url, healthy.url]);
    await endpoints!.probe();
    expect(ranked.map((state) => [state.endpoint, state.usable, state.selected])).to.deep.equal([
      [label(otherChain), false, false],
      [label(healthy), true, true],
    ]);
    const from = otherChain.calls.length;
    expect(await client.getChainId()).to.equal(4663);
    await client.getBlockNumber({ cacheTime: 0 });
    expect(otherChain.calls.length).to.equal(from);
  });

  it("before any probe, asks an endpoint its chain first: a read never reaches a node of another chain listed first, and goes to the next", async () => {
    const [otherChain, healthy] = proxies as [RpcProxy, RpcProxy];
    otherChain.answer("eth_chainId", "0x1");
    const client = open([otherChain.url, healthy.url]);
    // No probe has run (the API starts without awaiting one): reads in parallel share one chain id question per node.
    const blocks = await Promise.all([client.getBlockNumber({ cacheTime: 0 }), client.getBlockNumber({ cacheTime: 0 })]);
    expect(blocks[0]).to.equal(await hre.viem.getPublicClient().then((direct) => direct.getBlockNumber()));
    expect(otherChain.calls.map((call) => call.method)).to.deep.equal(["eth_chainId"]);
    expect(healthy.calls.filter((call) => call.method === "eth_chainId")).to.have.length(1);
    expect(endpoints!.selected).to.equal(label(healthy));
  });

  it("with only nodes of another chain, a read fails saying no endpoint serves the chain, naming them", async () => {
    const [first, second] = proxies as [RpcProxy, RpcProxy];
    for (const proxy of [first, second]) proxy.answer("eth_chainId", "0x1");
    const client = open([first.url, second.url]);
    const failure = await client.getBlockNumber({ cacheTime: 0 }).then(() => undefined, (error: unknown) => error as Error);
    expect(failure?.message).to.include(`no RPC endpoint serves chain 4663 (${label(first)}: serves another chain; ${label(second)}: serves another chain)`);
    expect([...first.calls, ...second.calls].map((call) => call.method)).to.deep.equal(["eth_chainId", "eth_chainId"]);
  });

  it("when the last endpoint serves another chain, the error still says why each earlier one was passed over (a silent node is not hidden)", async () => {
    const [silent, otherChain] = proxies as [RpcProxy, RpcProxy];
    silent.down();
    otherChain.answer("eth_chainId", "0x1");
    const client = open([silent.url, otherChain.url]);
    const failure = await client.getBlockNumber({ cacheTime: 0 }).then(() => undefined, (error: unknown) => error as Error);
    expect(failure?.message).to.match(new RegExp(`no RPC endpoint serves chain 4663 \\(${label(silent)}: chain id not read \\(.+\\); ${label(otherChain)}: serves another chain\\)`));
    expect(failovers).to.deep.equal([label(silent)]);
  });

  it("when the last endpoint gives no answer, the error still names why each earlier one was passed over, and still reads as no answer", async () => {
    const [otherChain, silent] = proxies as [RpcProxy, RpcProxy];
    otherChain.answer("eth_chainId", "0x1");
    const client = open([otherChain.url, silent.url]);
    // The silent node's chain id is read while it is up; then it stops answering.
    expect(await client.getChainId()).to.equal(4663);
    silent.down();
    const failure = await client.getBlockNumber({ cacheTime: 0 }).then(() => undefined, (error: unknown) => error as Error);
    expect(failure?.message).to.match(/^no RPC endpoint serves chain 4663 \(/);
    // Passed over in this request, or already left out by the ranking: either way, named with its reason.
    expect(failure?.message).to.match(new RegExp(`${label(otherChain)}: (set aside \\()?serves another chain`));
    expect(failure?.message).to.match(new RegExp(`${label(silent)}: no answer \\(.+\\)`));
    expect(isNoAnswer(failure)).to.equal(true);
  });

  it("passes over an endpoint whose chain check fails in any way (a refused eth_chainId, a malformed id) and asks it again at its next use", async () => {
    const [refusing, healthy] = proxies as [RpcProxy, RpcProxy];
    refusing.fail("eth_chainId", "method not available");
    const client = open([refusing.url, healthy.url]);
    expect(await client.getBlockNumber({ cacheTime: 0 })).to.be.a("bigint");
    refusing.allow();
    refusing.answer("eth_chainId", "not a number");
    expect(await client.getBlockNumber({ cacheTime: 0 })).to.be.a("bigint");
    expect(failovers).to.deep.equal([label(refusing), label(refusing)]);
    // Once it answers its chain id properly, it is checked for good and never asked again.
    refusing.allow();
    await endpoints!.probe();
    await endpoints!.probe();
    expect(refusing.calls.filter((call) => call.method === "eth_chainId")).to.have.length(3);
  });

  it("tries the next endpoint when the selected one cuts the connection, counts the failover, and moves reads at once", async () => {
    const client = open([proxies[0]!.url, proxies[1]!.url]);
    await endpoints!.probe();
    const [first, second] = bySelection();
    first.down();
    const balance = await client.getBalance({ address: "0x0000000000000000000000000000000000000001" });
    expect(typeof balance).to.equal("bigint");
    expect(failovers).to.deep.equal([label(first)]);
    // The failure re-ranked: the next read goes to the second without trying the first again.
    expect(endpoints!.selected).to.equal(label(second));
    const seen = first.seen.length;
    await client.getBlockNumber({ cacheTime: 0 });
    expect(first.seen.length).to.equal(seen);
  });

  it("returns a node's answer as is (a revert is an answer), and never sends eth_sendRawTransaction to a second endpoint", async () => {
    const client = open([proxies[0]!.url, proxies[1]!.url]);
    await endpoints!.probe();
    const [first, second] = bySelection();
    first.fail("eth_call", "execution reverted");
    const reverted = await client.call({ to: "0x0000000000000000000000000000000000000001", data: "0x" }).then(() => undefined, (error: unknown) => error);
    expect(String(reverted)).to.match(/execution reverted/);
    expect(failovers).to.deep.equal([]);
    expect(second.seen).to.not.include("eth_call");

    first.refuse("eth_sendRawTransaction");
    const refused = await client.request({ method: "eth_sendRawTransaction", params: ["0x02"] }).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(Error);
    expect(second.seen).to.not.include("eth_sendRawTransaction");
  });

  it("takes a real revert from the Hardhat node behind it (-32603 with revert data) as an answer: no failover, no second endpoint, no strike against the node", async () => {
    const client = open([proxies[0]!.url, proxies[1]!.url]);
    await endpoints!.probe();
    // What matters is that the call stays on whichever the probe selected.
    const selected = endpoints!.selected;
    const [, other] = bySelection();
    // Init code that reverts at once (PUSH1 0 PUSH1 0 REVERT): any caller can send such a call.
    const reverted = await client.call({ data: "0x60006000fd" }).then(() => undefined, (error: unknown) => error);
    expect(reverted, "the node reverted the call").to.be.instanceOf(Error);
    expect(failovers).to.deep.equal([]);
    expect(other.seen).to.not.include("eth_call");
    expect(endpoints!.selected).to.equal(selected);
  });

  it("with every endpoint silent, a read fails after trying each once, naming each one's failure, the last one's error its cause (still no answer)", async () => {
    const client = open(proxies.map((proxy) => proxy.url));
    for (const proxy of proxies) proxy.down();
    await endpoints!.probe();
    expect(ranked.every((state) => !state.usable)).to.equal(true);
    const failed = await client.getBlockNumber({ cacheTime: 0 }).then(() => undefined, (error: unknown) => error as Error);
    expect(failed).to.be.instanceOf(Error);
    for (const proxy of proxies) expect(failed?.message).to.match(new RegExp(`${label(proxy)}: (chain id not read|no answer) \\(`));
    expect(failed?.cause).to.be.instanceOf(Error);
    expect(isNoAnswer(failed)).to.equal(true);
    expect(failovers).to.have.length(proxies.length - 1);
  });

  it("with one endpoint, its own error is thrown as it is", async () => {
    const [only] = proxies as [RpcProxy];
    const client = open([only.url]);
    only.down();
    const failed = await client.getBlockNumber({ cacheTime: 0 }).then(() => undefined, (error: unknown) => error as Error);
    expect(failed?.name).to.equal("HttpRequestError");
  });
});
