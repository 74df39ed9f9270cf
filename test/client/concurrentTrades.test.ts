import { expect } from "chai";
import { erc20Abi, parseAbi, parseEther } from "viem";
import { PERMIT2_ADDRESS } from "../../sdk";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

const wethAbi = parseAbi(["function deposit() payable"]);

describe("three trades of one wallet at once all land: the client serialises what takes the wallet's nonce", function () {
  this.timeout(180_000);
  let devnet: SharedDevnet;
  before(async function () {
    this.timeout(300_000);
    devnet = await sharedDevnet();
  });

  it("three executeQuote of permit quotes at once, from a wallet that has not approved Permit2: one approval, three swaps", async () => {
    const { client } = await devnet.onboardedClient();
    const funded = await fundedTaker(devnet, { USDC: 3_000_000_000n });
    const taker = devnet.wallet(funded.privateKey);
    const quotes = await Promise.all([0, 1, 2].map(() => client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 100_000_000n, taker: funded.address })));
    for (const quote of quotes) expect(quote.issues.allowance?.spender, "each quote asks for the Permit2 approval").to.equal(PERMIT2_ADDRESS);
    const results = await Promise.allSettled(quotes.map((quote) => client.executeQuote(quote, taker)));
    const failures = results.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []));
    expect(failures).to.deep.equal([]);
    const executed = results.map((result) => (result as PromiseFulfilledResult<Awaited<ReturnType<typeof client.executeQuote>>>).value);
    expect(executed.map((result) => result.receipt.status)).to.deep.equal(["success", "success", "success"]);
    expect(executed.filter((result) => result.approvalHash !== undefined), "the first approval serves the other two").to.have.length(1);
    expect(await devnet.publicClient.getTransactionCount({ address: funded.address })).to.equal(4);
    client.close();
  });

  it("three executeQuote of allowance-holder quotes at once: each approves exactly its debit and swaps, in turn", async () => {
    const { client } = await devnet.onboardedClient();
    const funded = await fundedTaker(devnet, { USDC: 3_000_000_000n });
    const taker = devnet.wallet(funded.privateKey);
    const quotes = await Promise.all(
      [0, 1, 2].map((index) => client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("DAI"), sellAmount: 50_000_000n + BigInt(index), taker: funded.address, settlement: "allowance" })),
    );
    const results = await Promise.allSettled(quotes.map((quote) => client.executeQuote(quote, taker)));
    expect(results.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []))).to.deep.equal([]);
    expect(await devnet.publicClient.readContract({ address: devnet.token("USDC"), abi: erc20Abi, functionName: "balanceOf", args: [funded.address] })).to.equal(3_000_000_000n - 150_000_003n);
    client.close();
  });

  it("three swapGasless at once selling WETH (no token permit: the client approves Permit2 itself): one approval, three relays confirmed", async () => {
    const { client } = await devnet.onboardedClient();
    const funded = await fundedTaker(devnet, {});
    const taker = devnet.wallet(funded.privateKey);
    const weth = devnet.token("WETH");
    await devnet.publicClient.waitForTransactionReceipt({ hash: await taker.writeContract({ address: weth, abi: wethAbi, functionName: "deposit", value: parseEther("3"), chain: taker.chain }) });
    const quotes = await Promise.all([0, 1, 2].map(() => client.getQuote({ sellToken: weth, buyToken: devnet.token("USDC"), sellAmount: parseEther("0.2"), taker: funded.address, gasless: true })));
    for (const quote of quotes) {
      expect(quote.approval ?? null, "WETH has no EIP-2612 permit").to.equal(null);
      expect(quote.issues.allowance?.spender).to.equal(PERMIT2_ADDRESS);
    }
    const results = await Promise.allSettled(quotes.map((quote) => client.swapGasless(quote, taker, { intervalMs: 200, timeoutMs: 90_000 })));
    expect(results.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []))).to.deep.equal([]);
    expect(results.map((result) => (result as PromiseFulfilledResult<{ status: string }>).value.status)).to.deep.equal(["confirmed", "confirmed", "confirmed"]);
    // The deposit and one approval: the swaps were the relayer's transactions.
    expect(await devnet.publicClient.getTransactionCount({ address: funded.address })).to.equal(2);
    client.close();
  });
});
