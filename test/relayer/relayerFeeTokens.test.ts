import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseUnits, type Address, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { checkTokenOnChain } from "../../api/tokens/tokenOnChainCheck";
import { RELAYER_TOKEN, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { newDevToken, type NewDevToken } from "../fixtures/newDevToken";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

/**
 * M-2: a relayer fee is worth only what its token is worth. A token anyone can mint (one promoted by
 * demand, or enabled) must not pay the relayer for the gas it spends, unless the operator lists it.
 */
describe("relayer fees only in tokens the operator accepts (RELAYER_FEE_TOKENS)", function () {
  this.timeout(60_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  let minted: NewDevToken;
  beforeEach(async () => {
    f = await loadFixture(settlementFixture);
    minted = await newDevToken(f, { symbol: "MINT", wethLiquidity: "100" });
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  /** What `tokens enable` (or promotion) does: the token joins the API's supported set with its pool. */
  const support = async (running: GaslessStack, token: NewDevToken) => {
    const address = token.address.toLowerCase() as Address;
    const check = await checkTokenOnChain({ client: f.publicClient, manifest: running.manifest, token: address, bases: running.manifest.tokens.map((base) => base.address), minLiquidityWei: 1n });
    if (!check.ok) throw new Error(check.reason);
    await running.api.store.saveTokenOverride(
      { chainId: 4663, token: address, status: "enabled", source: "operator", symbol: check.symbol, decimals: check.decimals, pool: check.pool, reason: "test", chainRun: running.manifest.deployBlockHash, at: new Date() },
      "replace",
    );
    await running.api.served.jobs.refresh();
  };

  /** A fresh taker holding `amount` of the token (minted by its owner, the deployer) with Permit2 approved. */
  const takerOf = async (token: Address, amount: bigint): Promise<LocalAccount> => {
    const taker = privateKeyToAccount(generatePrivateKey());
    const contract = await hre.viem.getContractAt("DevToken", token, { client: { public: f.publicClient, wallet: f.deployer } });
    await f.publicClient.waitForTransactionReceipt({ hash: await contract.write.mint([taker.address, amount]) });
    await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.sendTransaction({ to: taker.address, value: parseUnits("1", 18) }) });
    const wallet = await hre.viem.getWalletClient(taker.address, { account: taker });
    await f.publicClient.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }) });
    return taker;
  };

  const sellMinted = (running: GaslessStack, taker: Address) => running.gaslessQuote(taker, { sell_token: minted.address, buy_token: "WETH", sell_amount: parseUnits("10", 18) });
  const signerNonces = () => Promise.all(relayerAccounts().signers.map((signer) => f.publicClient.getTransactionCount({ address: signer.address })));

  it("by default (the manifest's tokens) a gasless quote selling a supported non-manifest token is 400 fee_token_not_accepted naming sell_token; a self-submitted quote of it still works", async () => {
    stack = await startGaslessStack(f);
    await support(stack, minted);
    const taker = f.taker.account.address;
    const refused = await sellMinted(stack, taker);
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal("fee_token_not_accepted");
    expect(refused.body.error).to.match(/^sell_token MINT \(0x[0-9a-f]{40}\) is not a token the relayer accepts for its fee \(RELAYER_FEE_TOKENS\); gasless quotes sell one of .*USDC/);
    const selfSubmitted = await stack.api.quote({ sell_token: minted.address, buy_token: "WETH", sell_amount: parseUnits("10", 18), taker });
    expect(selfSubmitted.status, JSON.stringify(selfSubmitted.body)).to.equal(200);
    expect((await stack.gaslessQuote(taker)).status, "a manifest token (USDC) is accepted").to.equal(200);
  });

  it("listed in the API's RELAYER_FEE_TOKENS but not the relayer's, the relay is refused by the relayer before it is stored or sent: 400 fee_token_not_accepted", async () => {
    stack = await startGaslessStack(f, { gasless: { feeTokens: ["USDC", minted.address] } });
    await support(stack, minted);
    const taker = await takerOf(minted.address, parseUnits("100", 18));
    const quote = (await sellMinted(stack, taker.address)).body;
    expect(quote.relayer_fee?.token, JSON.stringify(quote)).to.equal(minted.address.toLowerCase());
    const nonces = await signerNonces();

    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(400);
    expect(submitted.body.code).to.equal("fee_token_not_accepted");
    expect(submitted.body.error).to.match(/^sell_token: the relay's fee token 0x[0-9a-f]{40} \(its order's sellToken\) is not one this relayer accepts/);
    expect(await signerNonces(), "the relayer sent nothing").to.deep.equal(nonces);
    expect(await balanceOf(f, minted.address, taker.address)).to.equal(parseUnits("100", 18));

    // The relayer's own endpoint refuses it too, and anything that is not swapGasless calldata.
    const handOff = (data: string) =>
      fetch(`${stack!.relayer!.url}/internal/relays`, {
        method: "POST",
        headers: { authorization: `Bearer ${RELAYER_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          chain_id: 4663, quote_id: quote.quote_id, onchain_quote_id: quote.permit2.message.witness.quoteId, integrator_id: 1, api_key_id: 1,
          idempotency_key: null, taker: taker.address, router: quote.tx.to, data, signature: `0x${"11".repeat(65)}`,
          permit2_nonce: quote.permit2.message.nonce, deadline: quote.permit2.message.deadline, estimated_gas: quote.tx.estimated_gas,
        }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { code: string } }));
    expect(await handOff(quote.tx.data)).to.deep.include({ status: 400, body: { error: `the relay's fee token ${minted.address.toLowerCase()} (its order's sellToken) is not one this relayer accepts (RELAYER_FEE_TOKENS)`, code: "fee_token_not_accepted" } });
    expect((await handOff("0x12345678")).body.code).to.equal("invalid_request");
  });

  it("an operator who lists the token for both the API and the relayer (address or symbol) gets it relayed, the fee paid in it", async () => {
    stack = await startGaslessStack(f, { gasless: { feeTokens: ["usdc", minted.address] }, relayerEnv: { RELAYER_FEE_TOKENS: `USDC,${minted.address}` } });
    await support(stack, minted);
    const taker = await takerOf(minted.address, parseUnits("100", 18));
    const quote = (await sellMinted(stack, taker.address)).body;
    const fee = BigInt(quote.relayer_fee.amount);
    expect(fee > 0n).to.equal(true);
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    expect((await stack.waitFor(submitted.body.relay_id)).status).to.equal("confirmed");
    expect(await balanceOf(f, minted.address, stack.feeRecipient)).to.equal(fee);
    expect((await stack.gaslessQuote(taker.address)).status, "USDC, listed by symbol in any case").to.equal(200);
  });

  it("refuses to start on a RELAYER_FEE_TOKENS symbol no manifest has (a typo would refuse that token's fees silently)", async () => {
    const failure = await startGaslessStack(f, { relayerEnv: { RELAYER_FEE_TOKENS: "USDC,USCD" } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(failure)).to.match(/invalid RELAYER_FEE_TOKENS: USCD is not the symbol of a token in the manifest of chain 4663/);
  });
});
