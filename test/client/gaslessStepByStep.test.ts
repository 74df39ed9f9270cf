import { expect } from "chai";
import { erc20Abi } from "viem";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

/** A taker holding `usdc` and no ETH at all: every transaction it could send would fail. */
async function takerWithoutEth(devnet: SharedDevnet, usdc: bigint) {
  const funded = await fundedTaker(devnet, { USDC: usdc });
  await devnet.publicClient.request({ method: "hardhat_setBalance" as never, params: [funded.address, "0x0"] as never });
  return devnet.wallet(funded.privateKey);
}

describe("the step-by-step gasless path trades from a wallet with no ETH, as swapGasless does", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  before(async function () {
    this.timeout(300_000);
    devnet = await sharedDevnet();
  });

  it("signGaslessQuote → submitGasless(quote, signature) → waitForRelay: the token permit is signed with the order and sent along; no transaction, no ETH", async () => {
    const { client } = await devnet.onboardedClient();
    const taker = await takerWithoutEth(devnet, 500_000_000n);
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 200_000_000n, taker: taker.account.address, gasless: true });
    expect(quote.approval?.type, "the quote offers the token permit").to.equal("permit");
    // The documented steps, unchanged.
    const signature = await client.signGaslessQuote(quote, taker);
    const submitted = await client.submitGasless(quote, signature);
    const final = await client.waitForRelay(submitted.relay_id, { intervalMs: 200, timeoutMs: 60_000 });
    expect(final.status, JSON.stringify(final)).to.equal("confirmed");
    expect(await devnet.publicClient.getTransactionCount({ address: taker.account.address })).to.equal(0);
    expect(await devnet.publicClient.getBalance({ address: taker.account.address })).to.equal(0n);
    const bought = await devnet.publicClient.readContract({ address: devnet.token("WETH"), abi: erc20Abi, functionName: "balanceOf", args: [taker.account.address] });
    expect(bought >= BigInt(quote.min_buy_amount)).to.equal(true);
    client.close();
  });

  it("signGasless returns both signatures for a submission by quote id: the order's and the token permit's", async () => {
    const { client } = await devnet.onboardedClient();
    const taker = await takerWithoutEth(devnet, 500_000_000n);
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 100_000_000n, taker: taker.account.address, gasless: true });
    const { signature, approvalSignature } = await client.signGasless(quote, taker);
    expect(approvalSignature).to.equal(await client.signGaslessApproval(quote, taker));
    // By id, the client cannot know the quote's approval: the caller passes it, as documented.
    const submitted = await client.submitGasless(quote.quote_id, signature, { approvalSignature });
    const final = await client.waitForRelay(submitted.relay_id, { intervalMs: 200, timeoutMs: 60_000 });
    expect(final.status, JSON.stringify(final)).to.equal("confirmed");
    expect(await devnet.publicClient.getTransactionCount({ address: taker.account.address })).to.equal(0);
    client.close();
  });
});
