import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseGwei, type Hex } from "viem";
import { startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { settlementFixture } from "../fixtures/settlementFixture";

/**
 * Chain 4663's gas price is about 0.02 gwei: a configured tip far above what the network asks would
 * make every relayer fee many times too high. The API prices the fee with the node's suggested tip,
 * and the relayer's first broadcast tips the same, both at most RELAYER_PRIORITY_FEE_GWEI.
 */
describe("gasless: the tip is the node's, the configured tip only a ceiling (API fee and relayer broadcast)", function () {
  this.timeout(120_000);
  let stack: GaslessStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("RELAYER_PRIORITY_FEE_GWEI=3 above the node's 1 gwei: the fee is priced at base fee + 1 gwei and the relayer's swap tips 1 gwei", async () => {
    const f = await loadFixture(settlementFixture);
    stack = await startGaslessStack(f, { gasless: { priorityFeeWei: parseGwei("3") }, relayerEnv: { RELAYER_PRIORITY_FEE_GWEI: "3" } });
    const nodeTip = BigInt(await f.publicClient.request({ method: "eth_maxPriorityFeePerGas" }));
    expect(nodeTip < parseGwei("3")).to.equal(true);
    const taker = f.signerOf(f.taker.account.address);
    const quote = (await stack.gaslessQuote(taker.address)).body;
    const block = await f.publicClient.getBlock({ blockNumber: BigInt(quote.block_number) });
    expect(quote.relayer_fee.gas_price).to.equal((block.baseFeePerGas! + nodeTip).toString());
    expect(quote.network_fee.gas_price).to.equal(quote.relayer_fee.gas_price);

    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }),
    });
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const relay = await stack.waitFor(submitted.body.relay_id);
    expect(relay.status).to.equal("confirmed");
    const sent = await f.publicClient.getTransaction({ hash: relay.tx_hash as Hex });
    expect(sent.maxPriorityFeePerGas).to.equal(nodeTip);
  });

  it("RELAYER_PRIORITY_FEE_GWEI=0.5 below the node's tip: the configured tip is the ceiling", async () => {
    const f = await loadFixture(settlementFixture);
    stack = await startGaslessStack(f, { gasless: { priorityFeeWei: parseGwei("0.5") }, relayerEnv: { RELAYER_PRIORITY_FEE_GWEI: "0.5" } });
    const quote = (await stack.gaslessQuote(f.taker.account.address)).body;
    const block = await f.publicClient.getBlock({ blockNumber: BigInt(quote.block_number) });
    expect(quote.relayer_fee.gas_price).to.equal((block.baseFeePerGas! + parseGwei("0.5")).toString());
  });
});
