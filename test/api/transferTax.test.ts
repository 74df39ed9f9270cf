import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { getAddress, type Address } from "viem";
import { createChainClient } from "../../api/chains/loadChains";
import { measureTransferTax, TRANSFER_TAX_PROBE_ADDRESS } from "../../api/tokens/transferTax";
import { transferTaxProbe } from "../../api/tokens/transferTaxProbeCode";
import { TAXED_DEV_TOKEN } from "../../scripts/deploy/devnetMarket";
import { startChainServer } from "../../scripts/devnet/chainServer";
import { deployTestToken, fundAccount } from "../../scripts/deploy/deployTestToken";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { writeAndWait } from "../../scripts/deploy/writeAndWait";
import { taxedMarketFixture } from "../fixtures/taxedMarket";

const CONFIGURED = { buyTaxBps: TAXED_DEV_TOKEN.buyTaxBps, sellTaxBps: TAXED_DEV_TOKEN.sellTaxBps, transferTaxBps: TAXED_DEV_TOKEN.transferTaxBps };

describe("transfer-tax measurement", () => {
  it("reads 0 for an untaxed token and the configured buy, sell and transfer taxes for TAXD, over the node's HTTP JSON-RPC", async () => {
    const f = await loadFixture(taxedMarketFixture);
    const server = await startChainServer(hre, "127.0.0.1", 0);
    try {
      const client = createChainClient(4663, server.url);
      expect(await measureTransferTax(client, f.token("USDC"), f.pool("WETH", "USDC"))).to.deep.equal({ ok: true, tax: { buyTaxBps: 0, sellTaxBps: 0, transferTaxBps: 0 } });
      expect(await measureTransferTax(client, f.token("WETH"), f.pool("WETH", "USDC"))).to.deep.equal({ ok: true, tax: { buyTaxBps: 0, sellTaxBps: 0, transferTaxBps: 0 } });
      expect(await measureTransferTax(client, f.taxed.token.address, f.taxed.pool.address)).to.deep.equal({ ok: true, tax: CONFIGURED });
    } finally {
      await server.close();
    }
  });

  it("follows a change of the token's taxes, leaves no trace on chain, and the probe's code is the compiled contract's", async () => {
    const f = await loadFixture(taxedMarketFixture);
    const token = await hre.viem.getContractAt("TaxedDevToken", f.taxed.token.address, { client: { public: f.publicClient, wallet: f.deployer } });
    await token.write.setTaxes([0n, 2_500n, 0n]);
    const block = await f.publicClient.getBlockNumber();
    expect(await measureTransferTax(f.publicClient, f.taxed.token.address, f.taxed.pool.address)).to.deep.equal({ ok: true, tax: { buyTaxBps: 0, sellTaxBps: 2_500, transferTaxBps: 0 } });
    expect(await f.publicClient.getBlockNumber()).to.equal(block);
    expect(await f.publicClient.getCode({ address: TRANSFER_TAX_PROBE_ADDRESS })).to.equal(undefined);
    expect(transferTaxProbe.deployedBytecode).to.equal((await hre.artifacts.readArtifact("TransferTaxProbe")).deployedBytecode);
    expect(transferTaxProbe.abi).to.deep.equal((await hre.artifacts.readArtifact("TransferTaxProbe")).abi);
  });

  it("says why when the pool cannot be measured: an empty pool, a contract that is no pool, a token the pool does not hold", async () => {
    const f = await loadFixture(taxedMarketFixture);
    // 50 units of the token in its pool: 1 % of it is nothing.
    const thin = await deployTestToken(hre, f, f.deployer, f, { symbol: "THIN", pairWith: { symbol: "WETH", amount: "1" }, tokenAmount: "0.00000000000000005" });
    expect(await measureTransferTax(f.publicClient, thin.address, thin.pair!)).to.deep.equal({ ok: false, reason: `pool ${thin.pair} holds too little of the token to measure its transfer tax`, unreadable: false });
    expect(await measureTransferTax(f.publicClient, f.token("DAI"), f.pool("WETH", "USDC"))).to.deep.equal({ ok: false, reason: `pool ${f.pool("WETH", "USDC")} does not trade ${f.token("DAI")}`, unreadable: false });
    // A token whose transfers revert: the pair's payout fails, and the reason says so.
    const client = { public: f.publicClient, wallet: f.deployer };
    const bad = await hre.viem.deployContract("AdversarialToken", [], { client });
    const factory = uniswapArtifacts.factory();
    await writeAndWait(f, f.deployer, { address: f.contracts.uniswapV2Factory, abi: factory.abi, functionName: "createPair", args: [bad.address, f.contracts.weth] });
    const badPair = (await f.publicClient.readContract({ address: f.contracts.uniswapV2Factory, abi: factory.abi, functionName: "getPair", args: [bad.address, f.contracts.weth] })) as Address;
    await fundAccount(hre, f, f.deployer, f, { account: badPair, token: "WETH", amount: "1" });
    await bad.write.mint([badPair, 10n ** 21n]);
    await writeAndWait(f, f.deployer, { address: badPair, abi: uniswapArtifacts.pair().abi, functionName: "mint", args: [f.deployer.account.address] });
    expect(await measureTransferTax(f.publicClient, bad.address, badPair)).to.deep.equal({ ok: true, tax: { buyTaxBps: 0, sellTaxBps: 0, transferTaxBps: 0 } });
    await bad.write.setTransferFailure([4n, false]);
    expect(await measureTransferTax(f.publicClient, bad.address, badPair)).to.deep.equal({ ok: false, reason: `its transfers through pool ${getAddress(badPair)} failed in simulation (Error: UniswapV2: TRANSFER_FAILED)`, unreadable: false });
    // The chain does not answer at all: unreadable, which says nothing about the token.
    const down = createChainClient(4663, "http://127.0.0.1:9");
    expect(await measureTransferTax(down, f.taxed.token.address, f.taxed.pool.address)).to.deep.include({ ok: false, unreadable: true });
    // A contract that is no pool.
    expect(await measureTransferTax(f.publicClient, f.token("USDC"), getAddress(f.contracts.weth))).to.deep.include({ ok: false, unreadable: true });
  });
});
