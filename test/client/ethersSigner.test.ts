import { expect } from "chai";
import { JsonRpcProvider, Wallet } from "ethers";
import { erc20Abi, getAddress, maxUint256, verifyMessage, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ClientConfigError, PERMIT2_ADDRESS, createTradingClient, fromEthersSigner, type TradingClient } from "../../sdk";
import { signQuotePermit } from "../../sdk/client/signQuotePermit";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

describe("ethers v6 signers in the trading client (fromEthersSigner) against npm start's devnet", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  let provider: JsonRpcProvider;
  /** A client configured like an ethers user's: no viem publicClient, so its reads go through the signer's provider. */
  let client: TradingClient;

  before(async function () {
    this.timeout(300_000);
    devnet = await sharedDevnet();
    // ethers defaults (a 250 ms cache of identical calls included), as a user has them.
    provider = new JsonRpcProvider(devnet.rpcUrl, undefined, { staticNetwork: true });
    // Onboarding signed by an ethers wallet (personal_sign through the adapter), with no funds at all.
    const owner = await fromEthersSigner(new Wallet(generatePrivateKey(), provider));
    const { application, apiKey } = await createTradingClient({ apiUrl: devnet.apiUrl }).onboard(owner, {
      chainId: 4663,
      displayName: "Ethers Onboarding",
      slug: `ethers-${owner.account.address.slice(2, 10).toLowerCase()}`,
      requestedMaxFeeBps: 50,
    });
    expect(application.status).to.equal("active");
    client = createTradingClient({
      apiUrl: devnet.apiUrl,
      apiKey: apiKey!.api_key,
      contracts: { routerRegistry: devnet.manifest.contracts.routerRegistry, allowanceHolder: devnet.manifest.contracts.allowanceHolder },
    });
  });
  after(() => {
    client?.close();
    provider?.destroy();
  });

  it("onboards with an ethers Wallet: the API verified its signatures, and its profile reads back with the same signer", async () => {
    const owner = await fromEthersSigner(new Wallet(generatePrivateKey(), provider));
    const onboarding = createTradingClient({ apiUrl: devnet.apiUrl });
    const slug = `ethers-view-${owner.account.address.slice(2, 10).toLowerCase()}`;
    const { apiKey } = await onboarding.onboard(owner, { chainId: 4663, displayName: "Ethers View", slug, requestedMaxFeeBps: 10 });
    expect(apiKey!.api_key).to.be.a("string").and.not.equal("");
    const profiles = await onboarding.viewProfile(owner, 4663);
    expect(JSON.stringify(profiles)).to.include(slug);
  });

  it("signs a message exactly as the ethers wallet does (bytes, not the hex text)", async () => {
    const key = generatePrivateKey();
    const wallet = await fromEthersSigner(new Wallet(key, provider));
    const message = "nonce 42\nissued at 2026-11-24";
    const signature = await wallet.signMessage({ account: wallet.account, message });
    expect(signature).to.equal(await privateKeyToAccount(key).signMessage({ message }));
    expect(await verifyMessage({ address: wallet.account.address, message, signature })).to.equal(true);
  });

  it("executes a permit quote with an ethers Wallet: the approval and the swap are sent by ethers, the permit signed by ethers", async () => {
    const taker = await fundedTaker(devnet, { USDC: 2_000_000_000n });
    const signer = new Wallet(taker.privateKey, provider);
    const wallet = await fromEthersSigner(signer);
    expect(wallet.account.address).to.equal(taker.address);
    const [usdc, weth] = [devnet.token("USDC"), devnet.token("WETH")];
    const quote = await client.getQuote({ sellToken: usdc, buyToken: weth, sellAmount: 500_000_000n, taker: taker.address });
    expect(quote.settlement).to.equal("permit2");
    expect(quote.issues.allowance?.spender).to.equal(PERMIT2_ADDRESS);

    // The permit signature through ethers' signTypedData is the one viem's account makes with the same key.
    expect(await signQuotePermit(quote, wallet)).to.equal(await signQuotePermit(quote, devnet.wallet(taker.privateKey)));

    const result = await client.executeQuote(quote, wallet);
    expect(result.receipt.status).to.equal("success");
    const approval = await devnet.publicClient.getTransaction({ hash: result.approvalHash! });
    expect(getAddress(approval.from)).to.equal(taker.address);
    expect(getAddress(approval.to!)).to.equal(usdc);
    expect(await devnet.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [taker.address, PERMIT2_ADDRESS] })).to.equal(maxUint256);
    expect(getAddress((await devnet.publicClient.getTransaction({ hash: result.hash })).from)).to.equal(taker.address);
    const bought = await devnet.publicClient.readContract({ address: weth, abi: erc20Abi, functionName: "balanceOf", args: [taker.address] });
    expect(bought >= BigInt(quote.min_buy_amount)).to.equal(true);
    expect(await provider.getTransactionCount(taker.address)).to.equal(2);
  });

  it("signs a gasless quote with an ethers Wallet and the relayer confirms it; the taker spends no ether on the swap", async () => {
    const taker = await fundedTaker(devnet, { USDC: 1_000_000_000n });
    const wallet = await fromEthersSigner(new Wallet(taker.privateKey, provider));
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 300_000_000n, taker: taker.address, gasless: true });
    const signature: Hex = await client.signGaslessQuote(quote, wallet);
    expect(signature).to.equal(await signQuotePermit(quote, devnet.wallet(taker.privateKey)));
    const afterApproval = await devnet.publicClient.getBalance({ address: taker.address });
    const relay = await client.waitForRelay((await client.submitGasless(quote, signature)).relay_id, { intervalMs: 200, timeoutMs: 60_000 });
    expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
    expect((await devnet.publicClient.getTransactionReceipt({ hash: relay.tx_hash! })).status).to.equal("success");
    expect(await devnet.publicClient.getBalance({ address: taker.address })).to.equal(afterApproval);
  });

  it("refuses a signer without a provider, saying what to connect", async () => {
    const failure = await fromEthersSigner(new Wallet(generatePrivateKey())).catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(ClientConfigError);
    expect((failure as ClientConfigError).message).to.include("provider");
  });
});
