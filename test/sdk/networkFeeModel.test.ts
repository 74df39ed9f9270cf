import { expect } from "chai";
import hre from "hardhat";
import { mine } from "@nomicfoundation/hardhat-network-helpers";
import { createPublicClient, custom, parseGwei, type EIP1193RequestFn, type PublicClient } from "viem";
import fc from "fast-check";
import { ARB_GAS_INFO, cappedPriorityFee, l1DataFeeWei, NetworkFeeModel } from "../../sdk/chain/networkFeeModel";
import { ChainHead } from "../../sdk/chain/chainHead";

/**
 * The Hardhat node through a client that counts the JSON-RPC methods it is asked, and can make the
 * node answer one method with an error (as a node without eth_maxPriorityFeePerGas does).
 */
function observedNode(unsupported: readonly string[] = []): { client: PublicClient; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const request = (async (args: { method: string; params?: unknown }) => {
    calls.set(args.method, (calls.get(args.method) ?? 0) + 1);
    if (unsupported.includes(args.method)) throw Object.assign(new Error(`the method ${args.method} does not exist/is not available`), { code: -32601 });
    return hre.network.provider.request(args as { method: string; params?: unknown[] });
  }) as EIP1193RequestFn;
  return { client: createPublicClient({ transport: custom({ request }) }) as PublicClient, calls };
}

describe("NetworkFeeModel: the node's tip, capped by the configured one, and the L1 data cost", () => {
  it("takes eth_maxPriorityFeePerGas from the node; the configured tip is a ceiling, not the price", async () => {
    const { client } = observedNode();
    const head = await new ChainHead(client).fresh();
    const fees = await new NetworkFeeModel(client, "none").at(head);
    const nodeTip = BigInt(await hre.network.provider.request({ method: "eth_maxPriorityFeePerGas" }) as string);
    expect(fees.nodePriorityFeePerGas).to.equal(nodeTip);
    expect(cappedPriorityFee(fees, parseGwei("5")), "a ceiling above the node's tip prices at the node's").to.equal(nodeTip);
    expect(cappedPriorityFee(fees, parseGwei("0.02")), "a ceiling below it wins").to.equal(parseGwei("0.02"));
  });

  it("falls back to the median eth_feeHistory reward when the node has no eth_maxPriorityFeePerGas", async () => {
    const { client, calls } = observedNode(["eth_maxPriorityFeePerGas"]);
    await mine(3);
    const head = await new ChainHead(client).fresh();
    const fees = await new NetworkFeeModel(client, "none").at(head);
    expect(calls.get("eth_feeHistory")).to.equal(1);
    const history = await client.getFeeHistory({ blockCount: 5, blockTag: "latest", rewardPercentiles: [50] });
    const rewards = history.reward!.map((row) => row[0]!).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(fees.nodePriorityFeePerGas).to.equal(rewards[Math.floor(rewards.length / 2)]);
    // Empty devnet blocks reward nothing: the node-derived tip (0) is below the 1-gwei ceiling and is used.
    expect(cappedPriorityFee(fees, parseGwei("1"))).to.equal(fees.nodePriorityFeePerGas);
  });

  it("reads once per block: quotes at one block share the read, the next block reads again", async () => {
    const { client, calls } = observedNode();
    const heads = new ChainHead(client);
    const model = new NetworkFeeModel(client, "arbitrum");
    const head = await heads.fresh();
    await Promise.all([model.at(head), model.at(head), model.at(head)]);
    await model.at(head);
    expect(calls.get("eth_maxPriorityFeePerGas")).to.equal(1);
    expect(calls.get("eth_call"), "ArbGasInfo read once").to.equal(1);
    await mine(1);
    await model.at(await heads.fresh());
    expect(calls.get("eth_maxPriorityFeePerGas")).to.equal(2);
  });

  it("arbitrum on the devnet, which has no ArbGasInfo precompile: the L1 term is zero and the operator is told", async () => {
    const { client } = observedNode();
    expect(await client.getCode({ address: ARB_GAS_INFO })).to.equal(undefined);
    let told = 0;
    const fees = await new NetworkFeeModel(client, "arbitrum", () => told++).at(await new ChainHead(client).fresh());
    expect(fees.l1).to.deep.equal({ perTransactionWei: 0n, perCalldataByteWei: 0n });
    expect(told).to.equal(1);
    expect(l1DataFeeWei(fees.l1, `0x${"ab".repeat(600)}`)).to.equal(0n);
    const none = await new NetworkFeeModel(client, "none", () => told++).at(await new ChainHead(client).fresh());
    expect(none.l1).to.deep.equal({ perTransactionWei: 0n, perCalldataByteWei: 0n });
    expect(told, "none never asks ArbGasInfo").to.equal(1);
  });

  it("an L1 data cost is the per-transaction price plus the per-byte price times the calldata's bytes (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.nat({ max: 4000 }), (perTransactionWei, perCalldataByteWei, bytes) => {
        const fee = l1DataFeeWei({ perTransactionWei, perCalldataByteWei }, `0x${"01".repeat(bytes)}`);
        expect(fee).to.equal(perTransactionWei + perCalldataByteWei * BigInt(bytes));
      }),
    );
  });
});
