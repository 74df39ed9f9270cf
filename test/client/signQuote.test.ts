import { expect } from "chai";
import { JsonRpcProvider, Wallet } from "ethers";
import { erc20Abi, getAddress, type Address } from "viem";
import { PERMIT2_ADDRESS, QuoteKindError, UntrustedRouterError, fromEthersSigner, type TradingClient } from "../../sdk";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

describe("signQuote: a taker-submitted quote signed and patched, not sent (custody, multisig)", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  let client: TradingClient;
  let provider: JsonRpcProvider;

  before(async function () {
    this.timeout(300_000);
    devnet = await sharedDevnet();
    ({ client } = await devnet.onboardedClient());
    // No 250 ms cache of provider calls: the test sends from ethers right after its own approval.
    provider = new JsonRpcProvider(devnet.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  });
  after(() => {
    client?.close();
    provider?.destroy();
  });

  const wethOf = (owner: Address) => devnet.publicClient.readContract({ address: devnet.token("WETH"), abi: erc20Abi, functionName: "balanceOf", args: [owner] });

  it("sends nothing, returns the approval and the patched transaction, and both land when the taker sends them itself", async () => {
    const taker = await fundedTaker(devnet, { USDC: 1_000_000_000n });
    const wallet = devnet.wallet(taker.privateKey);
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 400_000_000n, taker: taker.address });
    const signed = await client.signQuote(quote, wallet);

    expect(await devnet.publicClient.getTransactionCount({ address: taker.address })).to.equal(0);
    expect(signed.quoteId).to.equal(quote.quote_id);
    expect(signed.simulated).to.equal(false);
    expect(signed.approval).to.deep.include({ from: taker.address, value: 0n });
    expect(getAddress(signed.approval!.to)).to.equal(getAddress(quote.sell_token));
    expect(signed.approval!.data.slice(0, 10)).to.equal("0x095ea7b3"); // approve(Permit2, max)
    expect(signed.transaction).to.deep.include({ from: taker.address, to: quote.tx.to, value: 0n });
    // The quote's calldata with only the signature's 65 bytes replaced, at tx.signature_offset.
    const offset = 2 + 2 * quote.tx.signature_offset!;
    expect(signed.transaction.data.length).to.equal(quote.tx.data.length);
    expect(signed.transaction.data.slice(0, offset)).to.equal(quote.tx.data.slice(0, offset));
    expect(signed.transaction.data.slice(offset, offset + 130)).to.equal(signed.signature!.slice(2));
    expect(signed.transaction.data.slice(offset + 130)).to.equal(quote.tx.data.slice(offset + 130));

    for (const transaction of [signed.approval!, signed.transaction]) {
      const hash = await wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, to: transaction.to, data: transaction.data, value: transaction.value });
      expect((await devnet.publicClient.waitForTransactionReceipt({ hash })).status).to.equal("success");
    }
    expect((await wethOf(taker.address)) >= BigInt(quote.min_buy_amount)).to.equal(true);
  });

  it("with an ethers signer and Permit2 already approved: no approval, simulated, and ethers sends the returned transaction", async () => {
    const taker = await fundedTaker(devnet, { USDC: 1_000_000_000n });
    const signer = new Wallet(taker.privateKey, provider);
    await (await signer.sendTransaction({ to: devnet.token("USDC"), data: "0x095ea7b3" + PERMIT2_ADDRESS.slice(2).toLowerCase().padStart(64, "0") + "f".repeat(64) })).wait();
    const wallet = await fromEthersSigner(signer);
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 300_000_000n, taker: taker.address });
    expect(quote.issues.allowance).to.equal(null);
    const signed = await client.signQuote(quote, wallet);
    expect(signed.approval).to.equal(undefined);
    expect(signed.simulated).to.equal(true);
    const receipt = await (await signer.sendTransaction(signed.transaction)).wait();
    expect(receipt?.status).to.equal(1);
    expect((await wethOf(taker.address)) >= BigInt(quote.min_buy_amount)).to.equal(true);
  });

  it("refuses a gasless quote and a quote whose router the registry does not vouch for, before signing", async () => {
    const taker = await fundedTaker(devnet, { USDC: 1_000_000_000n });
    const wallet = devnet.wallet(taker.privateKey);
    const gasless = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 100_000_000n, taker: taker.address, gasless: true });
    expect(await client.signQuote(gasless, wallet).catch((error: unknown) => error)).to.be.instanceOf(QuoteKindError);
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 100_000_000n, taker: taker.address });
    const tampered = { ...quote, tx: { ...quote.tx, to: taker.address } };
    expect(await client.signQuote(tampered, wallet).catch((error: unknown) => error)).to.be.instanceOf(UntrustedRouterError);
  });
});
