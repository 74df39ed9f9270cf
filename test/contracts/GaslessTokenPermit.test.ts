import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, getAddress, maxUint256, parseAbi, parseEventLogs, parseSignature, parseUnits, serializeCompactSignature, signatureToCompactSignature, type Address, type Hex, type TransactionReceipt } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import {
  buildGaslessPermitTypedData,
  buildTokenPermitTypedData,
  decodeGaslessCall,
  encodeSwapGasless,
  encodeSwapGaslessFromContract,
  encodeSwapGaslessWithTokenPermit,
  erc2612PermitAbi,
  gaslessTokenPermitAbi,
  MAX_CONTRACT_SIGNATURE_BYTES,
  NATIVE_TOKEN,
  readTokenPermitDomain,
  type SignedGaslessOrder,
  type SwapOrder,
  type TokenPermitSignature,
} from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { oddTokenMarket } from "../fixtures/gaslessBatch";
import { balanceOf, orderFor, testRoute, testSplit } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 21n << 64n;
const PAYEE: Address = "0x00000000000000000000000000000000000Fee21";
const FEE = parseUnits("1", 6);
const quoteId = (index: number): Hex => `0x${(index + 0x21).toString(16).padStart(2, "0").repeat(32)}`;

/** A key that holds `usdc` of USDC and not one wei of ETH, and has approved nothing. */
async function walletWithOnlyUsdc(f: SettlementFixture, usdc = "500"): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.writeContract({ address: f.token("USDC"), abi: parseAbi(["function mint(address,uint256)"]), functionName: "mint", args: [account.address, parseUnits(usdc, 6)] }) });
  return account;
}

async function now(f: SettlementFixture) {
  return (await f.publicClient.getBlock()).timestamp;
}

async function usdcOrder(f: SettlementFixture, recipient: Address, index: number, amount = "200"): Promise<SwapOrder> {
  const sellAmount = parseUnits(amount, 6);
  return orderFor(await testRoute(f, ["USDC", "WETH"], sellAmount), sellAmount, recipient, await now(f), quoteId(index));
}

/** The order signed by `signer` (an EOA key) as the quote's Permit2 typed data asks, for `taker`. */
async function signOrder(f: SettlementFixture, signer: PrivateKeyAccount, taker: Address, order: SwapOrder, nonce: bigint, relayerFee = FEE): Promise<SignedGaslessOrder> {
  const typedData = buildGaslessPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.contracts.gaslessSwapRouter, order, nonce: NONCE_BASE + nonce, relayerFee, relayerFeeRecipient: PAYEE });
  return { params: order, taker, relayerFee, relayerFeeRecipient: PAYEE, nonce: NONCE_BASE + nonce, signature: await signer.signTypedData(typedData) };
}

/** The taker's EIP-2612 permit of USDC to Permit2 for `value`, as the API's `approval.eip712` asks. */
async function signTokenPermit(f: SettlementFixture, signer: PrivateKeyAccount, owner: Address, value: bigint): Promise<TokenPermitSignature> {
  const read = await readTokenPermitDomain(f.publicClient, f.token("USDC"), 4663, owner);
  if (read === undefined) throw new Error("USDC has no readable EIP-2612 domain");
  const deadline = (await now(f)) + 3600n;
  const signature = await signer.signTypedData(buildTokenPermitTypedData({ domain: read.domain, owner, spender: f.contracts.permit2, value, nonce: read.nonce, deadline }));
  return { value, deadline, signature };
}

async function relay(f: SettlementFixture, data: Hex) {
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data }) });
  expect(receipt.status).to.equal("success");
  return receipt;
}

function permitEvents(receipt: TransactionReceipt) {
  return parseEventLogs({ abi: gaslessTokenPermitAbi, logs: receipt.logs, eventName: "GaslessTokenPermitUsed" }).map((log) => log.args);
}

/** A smart wallet owned by the fixture's stranger key, holding 500 USDC, with Permit2 approved through its own call. */
async function smartWallet(f: SettlementFixture) {
  const owner = f.signerOf(f.stranger.account.address);
  const wallet = await hre.viem.deployContract("DevSmartWallet", [owner.address], { client: { public: f.publicClient, wallet: f.deployer } });
  await f.publicClient.waitForTransactionReceipt({ hash: await f.deployer.writeContract({ address: f.token("USDC"), abi: parseAbi(["function mint(address,uint256)"]), functionName: "mint", args: [wallet.address, parseUnits("500", 6)] }) });
  const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] });
  await f.publicClient.waitForTransactionReceipt({ hash: await f.stranger.writeContract({ address: wallet.address, abi: wallet.abi, functionName: "execute", args: [f.token("USDC"), 0n, approve] }) });
  return { wallet, owner, address: getAddress(wallet.address) };
}

const compact = (signature: Hex): Hex => serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)));

describe("GaslessTokenPermit (feature 3: token permit with the swap, smart-wallet takers)", () => {
  describe("swapGaslessWithTokenPermit", () => {
    it("a wallet with only USDC and zero ETH signs two messages and its swap settles in one relayed transaction; its ETH balance stays zero", async () => {
      const f = await loadFixture(settlementFixture);
      const taker = await walletWithOnlyUsdc(f);
      const order = await usdcOrder(f, taker.address, 0);
      const needed = order.sellAmount + FEE;
      const signed = await signOrder(f, taker, taker.address, order, 0n);
      const permit = await signTokenPermit(f, taker, taker.address, needed);
      const receipt = await relay(f, encodeSwapGaslessWithTokenPermit(signed, permit));
      expect(permitEvents(receipt)).to.deep.equal([{ quoteId: order.quoteId, token: f.token("USDC"), taker: taker.address, applied: true }]);
      expect(await balanceOf(f, f.contracts.weth, taker.address) >= order.minBuyAmount).to.equal(true);
      expect(await balanceOf(f, f.token("USDC"), taker.address)).to.equal(parseUnits("500", 6) - needed);
      expect(await balanceOf(f, f.token("USDC"), PAYEE)).to.equal(FEE);
      // The permit granted exactly sell amount plus fee, and Permit2 pulled all of it.
      expect(await f.publicClient.readContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "allowance", args: [taker.address, f.contracts.permit2] })).to.equal(0n);
      expect(await f.publicClient.getBalance({ address: taker.address })).to.equal(0n);
    });

    it("a permit a front-runner copied and landed first does not stop the swap: it settles on the allowance already there", async () => {
      const f = await loadFixture(settlementFixture);
      const taker = await walletWithOnlyUsdc(f);
      const order = await usdcOrder(f, taker.address, 1);
      const signed = await signOrder(f, taker, taker.address, order, 1n);
      const permit = await signTokenPermit(f, taker, taker.address, maxUint256);
      const { r, s, v } = parseSignature(permit.signature);
      await f.publicClient.waitForTransactionReceipt({
        hash: await f.stranger.writeContract({ address: f.token("USDC"), abi: erc2612PermitAbi, functionName: "permit", args: [taker.address, f.contracts.permit2, permit.value, permit.deadline, Number(v), r, s] }),
      });
      const receipt = await relay(f, encodeSwapGaslessWithTokenPermit(signed, permit));
      expect(permitEvents(receipt)).to.deep.equal([{ quoteId: order.quoteId, token: f.token("USDC"), taker: taker.address, applied: false }]);
      expect(await balanceOf(f, f.contracts.weth, taker.address) >= order.minBuyAmount).to.equal(true);
    });

    it("a permit signed by another key, with no allowance in place, reverts with SwapTokenPermitFailed naming the allowance and what was needed", async () => {
      const f = await loadFixture(settlementFixture);
      const taker = await walletWithOnlyUsdc(f);
      const order = await usdcOrder(f, taker.address, 2);
      const signed = await signOrder(f, taker, taker.address, order, 2n);
      const forged = await signTokenPermit(f, f.signerOf(f.stranger.account.address), taker.address, maxUint256);
      await expectRevert(
        f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessWithTokenPermit(signed, forged) }),
        "SwapTokenPermitFailed",
        [f.token("USDC"), taker.address, 0n, order.sellAmount + FEE],
      );
    });

    it("a permit for less than sell amount plus fee applies, and the Permit2 pull then fails: nothing moves", async () => {
      const f = await loadFixture(settlementFixture);
      const taker = await walletWithOnlyUsdc(f);
      const order = await usdcOrder(f, taker.address, 3);
      const signed = await signOrder(f, taker, taker.address, order, 3n);
      const short = await signTokenPermit(f, taker, taker.address, order.sellAmount);
      await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessWithTokenPermit(signed, short) }), "Error", ["TRANSFER_FROM_FAILED"]);
    });

    it("a token without EIP-2612 that the taker approved settles with the permit skipped", async () => {
      const f = await loadFixture(settlementFixture);
      const odd = await oddTokenMarket(f);
      const order = odd.sellOrder(parseUnits("10", 18), (await now(f)) + 600n, quoteId(4));
      const taker = f.signerOf(f.taker.account.address);
      const signed = await signOrder(f, taker, taker.address, order, 4n, 0n);
      const receipt = await relay(f, encodeSwapGaslessWithTokenPermit(signed, { value: 1n, deadline: 1n, signature: `0x${"11".repeat(64)}1b` }));
      expect(permitEvents(receipt)[0]?.applied).to.equal(false);
    });

    it("refuses a native sell before calling anything", async () => {
      const f = await loadFixture(settlementFixture);
      const taker = f.signerOf(f.taker.account.address);
      const order = { ...(await usdcOrder(f, taker.address, 5)), sellToken: NATIVE_TOKEN };
      const signed = await signOrder(f, taker, taker.address, order, 5n);
      const data = encodeSwapGaslessWithTokenPermit(signed, { value: 1n, deadline: 1n, signature: `0x${"11".repeat(64)}1b` });
      await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data }), "SwapNativeSellNotGasless");
    });

    it("calldata decodes back to the order and the permit it carries", async () => {
      const f = await loadFixture(settlementFixture);
      const taker = await walletWithOnlyUsdc(f);
      const order = await usdcOrder(f, taker.address, 6);
      const signed = await signOrder(f, taker, taker.address, order, 6n);
      const permit = await signTokenPermit(f, taker, taker.address, maxUint256);
      const decoded = decodeGaslessCall(encodeSwapGaslessWithTokenPermit(signed, permit));
      expect(decoded).to.deep.equal({ kind: "withTokenPermit", order: signed, tokenPermit: permit });
      expect(decodeGaslessCall(encodeSwapGaslessFromContract(signed))).to.deep.equal({ kind: "fromContract", order: signed });
      const { data: plain } = encodeSwapGasless(order, taker.address, { relayerFee: FEE, relayerFeeRecipient: PAYEE }, NONCE_BASE + 6n);
      expect(decodeGaslessCall(plain).kind).to.equal("swapGasless");
      expect(() => decodeGaslessCall("0x12345678")).to.throw(/not swapGasless calldata/);
    });
  });

  describe("swapGaslessFromContract", () => {
    it("a smart wallet's ERC-1271 signature (64 bytes, compact) settles its swap, which swapGasless refuses", async () => {
      const f = await loadFixture(settlementFixture);
      const { owner, address } = await smartWallet(f);
      const order = await usdcOrder(f, address, 10);
      const signed = await signOrder(f, owner, address, order, 10n);
      const signature = compact(signed.signature);
      const { data } = encodeSwapGasless(order, address, { relayerFee: FEE, relayerFeeRecipient: PAYEE }, signed.nonce);
      const legacy = encodeFunctionData({ abi: gaslessTokenPermitAbi, functionName: "swapGasless", args: [order, address, FEE, PAYEE, signed.nonce, signature] });
      expect(data.slice(0, 10)).to.equal(legacy.slice(0, 10));
      await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: legacy }), "SwapInvalidSignatureLength", [64n]);
      await relay(f, encodeSwapGaslessFromContract({ ...signed, signature }));
      expect(await balanceOf(f, f.contracts.weth, address) >= order.minBuyAmount).to.equal(true);
      expect(await balanceOf(f, f.token("USDC"), PAYEE)).to.equal(FEE);
    });

    it("a smart wallet that rejects the signature (another key signed) makes Permit2 refuse the swap", async () => {
      const f = await loadFixture(settlementFixture);
      const { address } = await smartWallet(f);
      const order = await usdcOrder(f, address, 11);
      const signed = await signOrder(f, f.signerOf(f.taker.account.address), address, order, 11n);
      await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessFromContract(signed) }), "InvalidContractSignature");
    });

    it("bounds a contract's signature to 1..MAX_CONTRACT_SIGNATURE_BYTES and keeps an EOA's at exactly 65", async () => {
      const f = await loadFixture(settlementFixture);
      const { address } = await smartWallet(f);
      expect(await f.publicClient.readContract({ address: f.contracts.gaslessSwapRouter, abi: gaslessTokenPermitAbi, functionName: "MAX_CONTRACT_SIGNATURE_BYTES" })).to.equal(BigInt(MAX_CONTRACT_SIGNATURE_BYTES));
      const order = await usdcOrder(f, address, 12);
      const signed = await signOrder(f, f.signerOf(f.stranger.account.address), address, order, 12n);
      const send = (taker: Address, signature: Hex) => f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessFromContract({ ...signed, taker, signature }) });
      await expectRevert(send(address, "0x"), "SwapContractSignatureLength", [0n, 2048n]);
      await expectRevert(send(address, `0x${"ab".repeat(2049)}`), "SwapContractSignatureLength", [2049n, 2048n]);
      await expectRevert(send(f.taker.account.address, compact(signed.signature)), "SwapInvalidSignatureLength", [64n]);
    });

    it("an EOA taker's 65-byte signature settles through it exactly as through swapGasless, a sponsored one (no fee) too", async () => {
      const f = await loadFixture(settlementFixture);
      const taker = await walletWithOnlyUsdc(f);
      await f.publicClient.request({ method: "hardhat_setBalance" as never, params: [taker.address, "0xde0b6b3a7640000"] as never });
      const client = await hre.viem.getWalletClient(taker.address);
      await hre.network.provider.request({ method: "hardhat_impersonateAccount", params: [taker.address] });
      await f.publicClient.waitForTransactionReceipt({ hash: await client.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }) });
      const order = await usdcOrder(f, taker.address, 13);
      const receipt = await relay(f, encodeSwapGaslessFromContract(await signOrder(f, taker, taker.address, order, 13n, 0n)));
      expect(parseEventLogs({ abi: gaslessTokenPermitAbi, logs: receipt.logs, eventName: "RelayerFeePaid" })).to.have.length(0);
      expect(await balanceOf(f, f.contracts.weth, taker.address) >= order.minBuyAmount).to.equal(true);
    });

    it("settles a split route (the sell token goes to the router first) for a smart wallet", async () => {
      const f = await loadFixture(settlementFixture);
      const { owner, address } = await smartWallet(f);
      const sellAmount = parseUnits("200", 6);
      const split = await testSplit(f, [["USDC", "WETH"], ["USDC", "USDT", "WETH"]], [6000, 4000], sellAmount);
      const order = orderFor(split, sellAmount, address, await now(f), quoteId(14));
      await relay(f, encodeSwapGaslessFromContract(await signOrder(f, owner, address, order, 14n)));
      expect(await balanceOf(f, f.contracts.weth, address) >= order.minBuyAmount).to.equal(true);
    });

    it("refuses a native sell and a fee with no payee", async () => {
      const f = await loadFixture(settlementFixture);
      const { owner, address } = await smartWallet(f);
      const order = await usdcOrder(f, address, 15);
      const signed = await signOrder(f, owner, address, order, 15n);
      const send = (changed: Partial<SignedGaslessOrder>) => f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessFromContract({ ...signed, ...changed }) });
      await expectRevert(send({ params: { ...order, sellToken: NATIVE_TOKEN } }), "SwapNativeSellNotGasless");
      await expectRevert(send({ relayerFeeRecipient: "0x0000000000000000000000000000000000000000" }), "SwapZeroAddress");
    });
  });

  it("while feature 3 is paused both entry points are refused (SwapFeaturePaused) before the permit or any transfer", async () => {
    const f = await loadFixture(settlementFixture);
    const taker = await walletWithOnlyUsdc(f);
    const order = await usdcOrder(f, taker.address, 20);
    const signed = await signOrder(f, taker, taker.address, order, 20n);
    const permit = await signTokenPermit(f, taker, taker.address, maxUint256);
    await f.registry.write.pause([3n]);
    await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessWithTokenPermit(signed, permit) }), "SwapFeaturePaused", [3n]);
    await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessFromContract(signed) }), "SwapFeaturePaused", [3n]);
    expect(await f.publicClient.readContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "allowance", args: [taker.address, f.contracts.permit2] })).to.equal(0n);
    await f.registry.write.unpause([3n]);
    await relay(f, encodeSwapGaslessWithTokenPermit(signed, permit));
  });

  describe("DevSmartWallet", () => {
    it("runs calls for its owner only and reports a failed call with its target", async () => {
      const f = await loadFixture(settlementFixture);
      const { wallet } = await smartWallet(f);
      await expectRevert(f.taker.writeContract({ address: wallet.address, abi: wallet.abi, functionName: "execute", args: [f.token("USDC"), 0n, "0x"] }), "DevSmartWalletNotOwner", [f.taker.account.address]);
      const transfer = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [PAYEE, parseUnits("501", 6)] });
      await expectRevert(f.stranger.writeContract({ address: wallet.address, abi: wallet.abi, functionName: "execute", args: [f.token("USDC"), 0n, transfer] }), "DevSmartWalletCallFailed");
      await f.publicClient.waitForTransactionReceipt({ hash: await f.stranger.sendTransaction({ to: wallet.address, value: 1n }) });
      expect(await f.publicClient.getBalance({ address: wallet.address })).to.equal(1n);
    });
  });
});
