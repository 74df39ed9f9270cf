import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { type Address, type Hex } from "viem";
import { gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

describe("probe", function () {
  this.timeout(60_000);
  let f: SettlementFixture;
  let stack: GaslessStack;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    stack = await startGaslessStack(f);
  });
  afterEach(async () => stack.close());

  it("probe", async () => {
    const griefer = await hre.viem.deployContract("GriefingRecipient", [], { client: { public: f.publicClient, wallet: f.deployer } });
    await f.publicClient.waitForTransactionReceipt({ hash: await griefer.write.setMode([2]) });
    const taker = f.signerOf(f.taker.account.address);
    for (let i = 0; i < 3; i++) {
    const quote = await stack.gaslessQuote(taker.address, { buy_token: "ETH", recipient: griefer.address });
    console.log(quote.status, quote.body.tx?.estimated_gas, quote.body.relayer_fee, quote.body.error);
    const submitted = await stack.submit({ quote_id: quote.body.quote_id, signature: await stack.sign(quote.body, taker) });
    
    const relay = await stack.waitFor(submitted.body.relay_id);
    console.log(relay.status, relay.reason, relay.error);
    if (relay.tx_hash) { const r = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex }); console.log(r.status, r.gasUsed); }
    console.log(await balanceOf(f, f.token("WETH"), griefer.address as Address));
    }
  });
});
