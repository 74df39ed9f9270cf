import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { getAddress, parseUnits, type Address, type Hex } from "viem";
import { settlementsByQuote, submitTogether } from "../fixtures/batchRelays";
import { fundedTakers, gaslessReadyFixture, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";

describe("batching under load (a real chain, relayer and API)", function () {
  this.timeout(600_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
  });
  afterEach(async () => {
    await stack?.close();
  });

  it("200 relays from 40 takers on 4 signers all confirm, each quote settled once, with every signer's nonces contiguous (no gap filled)", async () => {
    const takers = await fundedTakers(f, 40);
    const signers = relayerAccounts(4).signers.map((account) => account.address);
    const startCounts = await Promise.all(signers.map((address) => f.publicClient.getTransactionCount({ address })));
    stack = await startGaslessStack(f, { signers: 4, relayerEnv: { RELAYER_BATCH_WAIT_MS: "200" }, api: { defaultQuoteRateLimitPerMinute: 1_000_000, defaultSwapRateLimitPerMinute: 1_000_000 } });
    const relays = [];
    // Five waves of one relay per taker, each wave handed off at once.
    for (let wave = 0; wave < 5; wave++) relays.push(...(await submitTogether(stack, takers, parseUnits("20", 6))));
    expect(relays).to.have.length(200);
    const done = await Promise.all(relays.map(({ relayId }) => stack!.waitFor(relayId, undefined, 120_000)));
    expect(done.filter((relay) => relay.status !== "confirmed").map((relay) => [relay.status, relay.error])).to.deep.equal([]);
    const settled = await settlementsByQuote(f);
    expect(relays.every(({ onchainQuoteId }) => settled.get(onchainQuoteId) === 1)).to.equal(true);

    const minedHashes = new Set(done.map((relay) => relay.tx_hash as Hex));
    const nonces = new Map<Address, number[]>();
    for (const hash of minedHashes) {
      const transaction = await f.publicClient.getTransaction({ hash });
      nonces.set(getAddress(transaction.from), [...(nonces.get(getAddress(transaction.from)) ?? []), transaction.nonce]);
    }
    for (const [index, signer] of signers.entries()) {
      const used = (nonces.get(signer) ?? []).sort((a, b) => a - b);
      const count = await f.publicClient.getTransactionCount({ address: signer });
      // Every nonce from the start to the end went to one of the relays' transactions: none to a gap fill.
      expect(used, signer).to.deep.equal(Array.from({ length: count - startCounts[index]! }, (_, offset) => startCounts[index]! + offset));
    }
    expect(minedHashes.size).to.be.lessThan(200);
  });
});
