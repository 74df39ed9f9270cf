import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeAbiParameters, type Address } from "viem";
import { TAXED_DEV_TOKEN } from "../../scripts/deploy/devnetMarket";
import { deployTaxedToken } from "../../scripts/deploy/deployTaxedToken";
import { expectRevert } from "../helpers/expectRevert";
import { taxedMarketFixture } from "../fixtures/taxedMarket";

async function probeFixture() {
  const f = await taxedMarketFixture();
  const probe = await hre.viem.deployContract("TransferTaxProbe", [], { client: { public: f.publicClient, wallet: f.deployer } });
  return { ...f, probe };
}

describe("TransferTaxProbe", () => {
  it("reads 0 for every transfer of an untaxed token, whichever side of its pair the token is", async () => {
    const f = await loadFixture(probeFixture);
    const pair = f.pool("WETH", "USDC");
    for (const token of [f.token("USDC"), f.token("WETH")]) {
      await expectRevert(f.probe.simulate.measure([pair, token, 1_000_000n]), "TransferTaxProbeResult", [0n, 0n, 0n]);
    }
  });

  it("reads a taxed token's configured buy, sell and transfer taxes", async () => {
    const f = await loadFixture(probeFixture);
    await expectRevert(
      f.probe.simulate.measure([f.taxed.pool.address, f.taxed.token.address, 10n ** 18n]),
      "TransferTaxProbeResult",
      [BigInt(TAXED_DEV_TOKEN.buyTaxBps), BigInt(TAXED_DEV_TOKEN.sellTaxBps), BigInt(TAXED_DEV_TOKEN.transferTaxBps)],
    );
  });

  it("rounds a tax up to the next basis point and counts a token that delivers nothing as taxed entirely", async () => {
    const f = await loadFixture(probeFixture);
    const token = await hre.viem.getContractAt("TaxedDevToken", f.taxed.token.address, { client: { public: f.publicClient, wallet: f.deployer } });
    // 1 bps on 1,001 units burns 0 units (rounded down by the token): nothing is lost, so 0.
    await token.write.setTaxes([1n, 1n, 1n]);
    await expectRevert(f.probe.simulate.measure([f.taxed.pool.address, f.taxed.token.address, 1_001n]), "TransferTaxProbeResult", [0n, 0n, 0n]);
    // 1 bps on 40,000 units burns 4 (exactly 1 bps); on each half of the 39,996 received it burns 1, 0.5 bps rounded up.
    await expectRevert(f.probe.simulate.measure([f.taxed.pool.address, f.taxed.token.address, 40_000n]), "TransferTaxProbeResult", [1n, 1n, 1n]);
    // 15 bps on 1,000 units burns 1 (1.5 rounded down): 10 bps of what was sent, no less.
    await token.write.setTaxes([15n, 0n, 0n]);
    await expectRevert(f.probe.simulate.measure([f.taxed.pool.address, f.taxed.token.address, 1_000n]), "TransferTaxProbeResult", [10n, 0n, 0n]);
    await token.write.setTaxes([10_000n, 0n, 0n]);
    await expectRevert(f.probe.simulate.measure([f.taxed.pool.address, f.taxed.token.address, 1_000n]), "TransferTaxProbeResult", [10_000n, 10_000n, 10_000n]);
  });

  it("takes the flash-swap callback only from the pair it measures", async () => {
    const f = await loadFixture(probeFixture);
    const data = encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint256" }], [f.taxed.pool.address, f.taxed.token.address, 1n]);
    await expectRevert(
      f.probe.simulate.uniswapV2Call([f.stranger.account.address, 1n, 0n, data], { account: f.stranger.account }),
      "TransferTaxProbeUnexpectedCaller",
      [f.stranger.account.address, f.taxed.pool.address],
    );
  });
});

describe("TaxedDevToken", () => {
  it("burns the buy, sell or transfer tax by direction, and lets only the owner change taxes (within 10,000 bps) and the pool", async () => {
    const f = await loadFixture(taxedMarketFixture);
    const owner = { client: { public: f.publicClient, wallet: f.deployer } };
    const token = await hre.viem.getContractAt("TaxedDevToken", f.taxed.token.address, owner);
    expect(await token.read.pool()).to.equal(f.taxed.pool.address);
    const holder: Address = f.taker.account.address;
    await token.write.mint([holder, 10_000n]);
    const asHolder = await hre.viem.getContractAt("TaxedDevToken", f.taxed.token.address, { client: { public: f.publicClient, wallet: f.taker } });
    await asHolder.write.transfer([f.recipient.account.address, 10_000n]);
    expect(await token.read.balanceOf([f.recipient.account.address])).to.equal(9_900n);

    await expectRevert(token.simulate.setTaxes([10_001n, 0n, 0n]), "TaxedDevTokenTaxTooHigh", [10_001n, 10_000n]);
    await expectRevert(token.simulate.setTaxes([0n, 10_001n, 0n]), "TaxedDevTokenTaxTooHigh", [10_001n, 10_000n]);
    await expectRevert(token.simulate.setTaxes([0n, 0n, 10_001n]), "TaxedDevTokenTaxTooHigh", [10_001n, 10_000n]);
    await expectRevert(asHolder.simulate.setTaxes([0n, 0n, 0n], { account: f.taker.account }), "OwnableUnauthorizedAccount", [holder]);
    await expectRevert(asHolder.simulate.setPool([holder], { account: f.taker.account }), "OwnableUnauthorizedAccount", [holder]);
    await expectRevert(
      hre.viem.deployContract("TaxedDevToken", ["T", "T", 18, holder, 0n, 0n, 10_001n], owner),
      "TaxedDevTokenTaxTooHigh",
      [10_001n, 10_000n],
    );
    expect(typeof deployTaxedToken).to.equal("function");
  });
});
