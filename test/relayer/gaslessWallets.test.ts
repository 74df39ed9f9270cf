import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, getAddress, maxUint256, parseAbi, parseEventLogs, parseSignature, parseUnits, serializeCompactSignature, signatureToCompactSignature, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type LocalAccount } from "viem/accounts";
import { erc2612PermitAbi, gaslessTokenPermitAbi, readTokenPermitDomain } from "../../sdk";
import { CONTRACT_SIGNATURE_MODEL_GAS, TOKEN_PERMIT_MODEL_GAS } from "../../sdk/relay/gaslessExtraGas";
import { startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

type Approval = { type: "permit"; eip712: { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, string> } };

/** Signs the quote's `approval.eip712` as a wallet would (EIP712Domain removed). */
function signApproval(approval: Approval, account: LocalAccount): Promise<Hex> {
  const { EIP712Domain: _domain, ...types } = approval.eip712.types;
  return account.signTypedData({ ...approval.eip712, types } as Parameters<LocalAccount["signTypedData"]>[0]);
}

/** A key holding only USDC: not one wei of ETH, no allowance of any spender. */
async function usdcOnlyWallet(f: SettlementFixture, usdc = parseUnits("5000", 6)): Promise<LocalAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.writeContract({ address: f.token("USDC"), abi: mintAbi, functionName: "mint", args: [account.address, usdc] }) });
  return account;
}

describe("gasless beyond the anchors: a first trade with no ETH, and smart-wallet takers (API + relayer + chain)", function () {
  this.timeout(60_000);
  let f: SettlementFixture;
  let stack: GaslessStack;
  beforeEach(async () => {
    f = await loadFixture(settlementFixture);
    stack = await startGaslessStack(f);
  });
  afterEach(async () => {
    await stack.close();
  });

  describe("a first trade with no ETH", () => {
    it("a fresh wallet holding only USDC and zero ETH gets a quote with an approval, signs two messages, submits, and its swap confirms; its ETH balance is still zero", async () => {
      const taker = await usdcOnlyWallet(f);
      const quote = (await stack.gaslessQuote(taker.address)).body;
      expect(quote.issues.allowance).to.deep.equal({ spender: f.contracts.permit2, actual: "0" });
      expect(quote.permit2.signature_kind).to.equal("eoa");
      const fee = BigInt(quote.relayer_fee.amount);
      const approval = quote.approval as Approval;
      expect(approval.type).to.equal("permit");
      expect(approval.eip712.primaryType).to.equal("Permit");
      expect(approval.eip712.domain).to.deep.equal({ name: "USD Coin (devnet)", version: "1", chainId: 4663, verifyingContract: f.token("USDC") });
      expect(approval.eip712.message).to.deep.include({ owner: taker.address, spender: f.contracts.permit2, value: (BigInt(quote.sell_amount) + fee).toString(), nonce: "0", deadline: quote.permit2.deadline });

      const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker), approval_signature: await signApproval(approval, taker) });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
      const relay = await stack.waitFor(submitted.body.relay_id);
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
      expect(parseEventLogs({ abi: gaslessTokenPermitAbi, logs: receipt.logs, eventName: "GaslessTokenPermitUsed" }).map((log) => log.args.applied)).to.deep.equal([true]);
      expect(await f.publicClient.getBalance({ address: taker.address })).to.equal(0n);
      expect(await balanceOf(f, f.token("WETH"), taker.address)).to.equal(BigInt(quote.buy_amount));
      expect(await balanceOf(f, f.token("USDC"), taker.address)).to.equal(parseUnits("5000", 6) - BigInt(quote.sell_amount) - fee);
      // The fee was priced on the swap's model plus the permit's: together within 15 % of what the relayer used.
      const ratio = Number(receipt.gasUsed) / (quote.tx.estimated_gas + TOKEN_PERMIT_MODEL_GAS);
      expect(ratio, `gasUsed ${receipt.gasUsed} vs estimated ${quote.tx.estimated_gas} + ${TOKEN_PERMIT_MODEL_GAS}`).to.be.within(0.85, 1.15);
    });

    it("a permit a front-runner copied and landed first does not fail the swap: the relay still confirms", async () => {
      const taker = await usdcOnlyWallet(f);
      const quote = (await stack.gaslessQuote(taker.address)).body;
      const approval = quote.approval as Approval;
      const approvalSignature = await signApproval(approval, taker);
      const { r, s, v } = parseSignature(approvalSignature);
      const { owner, spender, value, deadline } = approval.eip712.message as Record<string, string>;
      await f.publicClient.waitForTransactionReceipt({
        hash: await f.stranger.writeContract({ address: f.token("USDC"), abi: erc2612PermitAbi, functionName: "permit", args: [owner as Address, spender as Address, BigInt(value!), BigInt(deadline!), Number(v), r, s] }),
      });
      const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker), approval_signature: approvalSignature });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
      const relay = await stack.waitFor(submitted.body.relay_id);
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
      expect(parseEventLogs({ abi: gaslessTokenPermitAbi, logs: receipt.logs, eventName: "GaslessTokenPermitUsed" }).map((log) => log.args.applied)).to.deep.equal([false]);
      expect(await f.publicClient.getBalance({ address: taker.address })).to.equal(0n);
    });

    it("refuses an approval_signature by another key, and one for a quote that offered no approval, naming the field", async () => {
      const taker = await usdcOnlyWallet(f);
      const quote = (await stack.gaslessQuote(taker.address)).body;
      const forged = await signApproval(quote.approval as Approval, privateKeyToAccount(generatePrivateKey()));
      const refused = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker), approval_signature: forged });
      expect([refused.status, refused.body.code]).to.deep.equal([400, "approval_signature_mismatch"]);
      expect(refused.body.error).to.match(/^approval_signature recovers to 0x[0-9a-fA-F]{40}, not the quote's taker/);

      // The fixture's taker has approved Permit2 already: no approval is offered.
      const approved = f.signerOf(f.taker.account.address);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }) });
      const plain = (await stack.gaslessQuote(approved.address)).body;
      expect(plain.approval).to.equal(null);
      const notOffered = await stack.submit({ quote_id: plain.quote_id, signature: await stack.sign(plain, approved), approval_signature: forged });
      expect([notOffered.status, notOffered.body.code]).to.deep.equal([400, "approval_not_offered"]);
      const malformed = await stack.submit({ quote_id: plain.quote_id, signature: await stack.sign(plain, approved), approval_signature: "0x1234" });
      expect([malformed.status, malformed.body.code, malformed.body.error]).to.deep.equal([400, "invalid_request", "approval_signature must be 0x-prefixed hex of exactly 65 bytes"]);
    });

    it("reads an EIP-2612 domain from the devnet's tokens and none from a token without permit", async () => {
      const plain = await hre.viem.deployContract("DevPlainToken", ["Plain (devnet)", "PLN", 18, f.deployer.account.address], { client: { public: f.publicClient, wallet: f.deployer } });
      expect(await readTokenPermitDomain(f.publicClient, plain.address, 4663, f.taker.account.address)).to.equal(undefined);
      const read = await readTokenPermitDomain(f.publicClient, f.token("DAI"), 4663, f.taker.account.address);
      expect(read).to.deep.equal({ domain: { name: "Dai Stablecoin (devnet)", version: "1", chainId: 4663, verifyingContract: f.token("DAI") }, nonce: 0n });
      // A domain for another chain is not the token's: refused rather than offered.
      expect(await readTokenPermitDomain(f.publicClient, f.token("DAI"), 1, f.taker.account.address)).to.equal(undefined);
    });
  });

  describe("smart-contract wallets", () => {
    async function smartWallet() {
      const owner = privateKeyToAccount(generatePrivateKey());
      const wallet = await hre.viem.deployContract("DevSmartWallet", [owner.address], { client: { public: f.publicClient, wallet: f.deployer } });
      await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.writeContract({ address: f.token("USDC"), abi: mintAbi, functionName: "mint", args: [wallet.address, parseUnits("5000", 6)] }) });
      // The owner's key pays for the wallet's one approval of Permit2 (a smart wallet cannot sign an EIP-2612 permit).
      await f.publicClient.request({ method: "hardhat_setBalance" as never, params: [owner.address, "0xde0b6b3a7640000"] as never });
      const ownerClient = await hre.viem.getWalletClient(owner.address, { account: owner });
      const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] });
      await f.publicClient.waitForTransactionReceipt({ hash: await ownerClient.writeContract({ address: wallet.address, abi: wallet.abi, functionName: "execute", args: [f.token("USDC"), 0n, approve] }) });
      return { owner, address: getAddress(wallet.address) };
    }

    it("a smart wallet trades gasless with its ERC-1271 signature (64 bytes): the quote says eip1271, the API checks it, the relayer settles it", async () => {
      const { owner, address } = await smartWallet();
      const quote = (await stack.gaslessQuote(address)).body;
      expect(quote.settlement).to.equal("permit2");
      expect(quote.permit2.signature_kind).to.equal("eip1271");
      expect(quote.approval).to.equal(null);
      const signature = serializeCompactSignature(signatureToCompactSignature(parseSignature(await stack.sign(quote, owner))));
      const submitted = await stack.submit({ quote_id: quote.quote_id, signature });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
      const relay = await stack.waitFor(submitted.body.relay_id);
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      expect(await balanceOf(f, f.token("WETH"), address)).to.equal(BigInt(quote.buy_amount));
      const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
      const ratio = Number(receipt.gasUsed) / (quote.tx.estimated_gas + CONTRACT_SIGNATURE_MODEL_GAS);
      expect(ratio, `gasUsed ${receipt.gasUsed} vs estimated ${quote.tx.estimated_gas} + ${CONTRACT_SIGNATURE_MODEL_GAS}`).to.be.within(0.7, 1.15);
    });

    it("refuses a signature the wallet rejects (another key), and one past 2048 bytes, before anything is relayed", async () => {
      const { address } = await smartWallet();
      const quote = (await stack.gaslessQuote(address)).body;
      const stranger = privateKeyToAccount(generatePrivateKey());
      const rejected = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, stranger) });
      expect([rejected.status, rejected.body.code]).to.deep.equal([400, "signature_mismatch"]);
      expect(rejected.body.error).to.match(/^signature: the taker 0x[0-9a-fA-F]{40} is a contract and its isValidSignature did not accept/);
      const long = await stack.submit({ quote_id: quote.quote_id, signature: `0x${"ab".repeat(2049)}` });
      expect([long.status, long.body.code, long.body.error]).to.deep.equal([400, "invalid_request", "signature must be at most 2048 bytes; got 2049 bytes"]);
    });
  });
});
