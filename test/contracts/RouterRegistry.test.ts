import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { getAddress, parseEventLogs, zeroAddress, type Address, type Hash } from "viem";
import { routerRegistryAbi } from "../../sdk/abis/routerRegistryAbi";
import { hardhatClients } from "../../scripts/deploy/hardhatClients";
import { registryFixture } from "../fixtures/registryFixture";
import { expectRevert } from "../helpers/expectRevert";

const TAKER = 2n;
const GASLESS = 3n;

describe("RouterRegistry", () => {
  async function eventsOf(hash: Hash) {
    const { publicClient } = await hardhatClients(hre);
    const receipt = await publicClient.getTransactionReceipt({ hash });
    return parseEventLogs({ abi: routerRegistryAbi, logs: receipt.logs });
  }

  async function activatedFixture() {
    const fixture = await registryFixture();
    await fixture.registry.write.stage([TAKER, fixture.routers.a]);
    await fixture.registry.write.activate([TAKER]);
    return fixture;
  }

  async function migratedFixture() {
    const fixture = await activatedFixture();
    await fixture.registry.write.stage([TAKER, fixture.routers.b]);
    await fixture.registry.write.activate([TAKER]);
    return fixture;
  }

  describe("deployment", () => {
    it("starts with the deployer as administrator, no pending admin and a one-hour dwell", async () => {
      const { registry, admin } = await loadFixture(registryFixture);
      expect(await registry.read.admin()).to.equal(getAddress(admin.account.address));
      expect(await registry.read.pendingAdmin()).to.equal(zeroAddress);
      expect(await registry.read.dwell()).to.equal(3600n);
    });

    it("refuses the zero address as first administrator", async () => {
      const { publicClient, admin } = await loadFixture(registryFixture);
      const deployment = hre.viem.deployContract("RouterRegistry", [zeroAddress], { client: { public: publicClient, wallet: admin } });
      await expectRevert(deployment, "RouterRegistryZeroAddress");
    });

    it("reports an untouched feature as all zeros and unpaused", async () => {
      const { registry } = await loadFixture(registryFixture);
      expect(await registry.read.getFeature([TAKER])).to.deep.equal([zeroAddress, zeroAddress, zeroAddress, false]);
      expect(await registry.read.next([TAKER])).to.equal(zeroAddress);
    });
  });

  describe("ownerOf", () => {
    it("reverts for a feature that was never activated", async () => {
      const { registry } = await loadFixture(registryFixture);
      await expectRevert(registry.read.ownerOf([TAKER]), "RouterRegistryFeatureNotInitialized", [TAKER]);
    });

    it("reverts for a staged but not yet activated feature", async () => {
      const { registry, routers } = await loadFixture(registryFixture);
      await registry.write.stage([TAKER, routers.a]);
      await expectRevert(registry.read.ownerOf([TAKER]), "RouterRegistryFeatureNotInitialized", [TAKER]);
    });

    it("reverts for ids above 2^128-1 and accepts 2^128-1 itself", async () => {
      const { registry } = await loadFixture(registryFixture);
      const max = (1n << 128n) - 1n;
      await expectRevert(registry.read.ownerOf([max + 1n]), "RouterRegistryFeatureIdTooLarge", [max + 1n]);
      await expectRevert(registry.read.ownerOf([(1n << 256n) - 1n]), "RouterRegistryFeatureIdTooLarge");
      await expectRevert(registry.read.ownerOf([max]), "RouterRegistryFeatureNotInitialized", [max]);
    });

    it("returns the current router once activated, independently per feature", async () => {
      const { registry, routers } = await loadFixture(activatedFixture);
      expect(await registry.read.ownerOf([TAKER])).to.equal(getAddress(routers.a));
      await expectRevert(registry.read.ownerOf([GASLESS]), "RouterRegistryFeatureNotInitialized", [GASLESS]);
    });
  });

  describe("stage and unstage", () => {
    it("stages a router as next and emits RouterStaged with the replaced router", async () => {
      const { registry, routers } = await loadFixture(registryFixture);
      const first = await registry.write.stage([TAKER, routers.a]);
      expect(await registry.read.next([TAKER])).to.equal(getAddress(routers.a));
      const second = await registry.write.stage([TAKER, routers.b]);
      expect(await registry.read.next([TAKER])).to.equal(getAddress(routers.b));
      const [staged] = await eventsOf(first);
      expect(staged?.eventName).to.equal("RouterStaged");
      expect(staged?.args).to.deep.equal({ featureId: TAKER, router: getAddress(routers.a), replaced: zeroAddress });
      const [restaged] = await eventsOf(second);
      expect(restaged?.args).to.deep.equal({ featureId: TAKER, router: getAddress(routers.b), replaced: getAddress(routers.a) });
    });

    it("refuses an address without code, including the zero address", async () => {
      const { registry, stranger } = await loadFixture(registryFixture);
      await expectRevert(registry.simulate.stage([TAKER, stranger.account.address]), "RouterRegistryNotAContract", [
        getAddress(stranger.account.address),
      ]);
      await expectRevert(registry.simulate.stage([TAKER, zeroAddress]), "RouterRegistryNotAContract", [zeroAddress]);
    });

    it("refuses to stage the router that is already current", async () => {
      const { registry, routers } = await loadFixture(activatedFixture);
      await expectRevert(registry.simulate.stage([TAKER, routers.a]), "RouterRegistryAlreadyCurrent", [TAKER, getAddress(routers.a)]);
    });

    it("unstages a staged router and emits RouterUnstaged", async () => {
      const { registry, routers } = await loadFixture(registryFixture);
      await registry.write.stage([TAKER, routers.a]);
      const hash = await registry.write.unstage([TAKER]);
      expect(await registry.read.next([TAKER])).to.equal(zeroAddress);
      const [event] = await eventsOf(hash);
      expect(event?.eventName).to.equal("RouterUnstaged");
      expect(event?.args).to.deep.equal({ featureId: TAKER, router: getAddress(routers.a) });
    });

    it("refuses to unstage when nothing is staged", async () => {
      const { registry } = await loadFixture(registryFixture);
      await expectRevert(registry.simulate.unstage([TAKER]), "RouterRegistryNothingStaged", [TAKER]);
    });
  });

  describe("activate", () => {
    it("first activation sets current only, with no previous router and no dwell", async () => {
      const { registry, routers } = await loadFixture(registryFixture);
      await registry.write.stage([TAKER, routers.a]);
      const hash = await registry.write.activate([TAKER]);
      expect(await registry.read.getFeature([TAKER])).to.deep.equal([zeroAddress, getAddress(routers.a), zeroAddress, false]);
      expect(await registry.read.dwellDeadline([TAKER])).to.equal(0n);
      await expectRevert(registry.read.prev([TAKER]), "RouterRegistryNoPreviousRouter", [TAKER]);
      const [event] = await eventsOf(hash);
      expect(event?.eventName).to.equal("RouterActivated");
      expect(event?.args).to.deep.equal({ featureId: TAKER, current: getAddress(routers.a), previous: zeroAddress, dwellUntil: 0n });
    });

    it("a migration keeps the outgoing router as previous until now + dwell", async () => {
      const { registry, routers, publicClient } = await loadFixture(activatedFixture);
      await registry.write.stage([TAKER, routers.b]);
      const hash = await registry.write.activate([TAKER]);
      const receipt = await publicClient.getTransactionReceipt({ hash });
      const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
      const until = block.timestamp + 3600n;
      expect(await registry.read.getFeature([TAKER])).to.deep.equal([
        getAddress(routers.a),
        getAddress(routers.b),
        zeroAddress,
        false,
      ]);
      expect(await registry.read.ownerOf([TAKER])).to.equal(getAddress(routers.b));
      expect(await registry.read.prev([TAKER])).to.equal(getAddress(routers.a));
      expect(await registry.read.next([TAKER])).to.equal(zeroAddress);
      expect(await registry.read.dwellDeadline([TAKER])).to.equal(until);
      const [event] = await eventsOf(hash);
      expect(event?.args).to.deep.equal({
        featureId: TAKER,
        current: getAddress(routers.b),
        previous: getAddress(routers.a),
        dwellUntil: until,
      });
    });

    it("refuses to activate when nothing is staged", async () => {
      const { registry } = await loadFixture(activatedFixture);
      await expectRevert(registry.simulate.activate([TAKER]), "RouterRegistryNothingStaged", [TAKER]);
    });

    it("a second migration replaces the previous router and restarts the window", async () => {
      const { registry, routers } = await loadFixture(migratedFixture);
      await time.increase(1800);
      await registry.write.stage([TAKER, routers.c]);
      await registry.write.activate([TAKER]);
      expect(await registry.read.prev([TAKER])).to.equal(getAddress(routers.b));
      expect(await registry.read.ownerOf([TAKER])).to.equal(getAddress(routers.c));
    });
  });

  describe("dwell window", () => {
    it("previous stays readable until the last second of the window, then prev reverts and getFeature reads zero", async () => {
      const { registry, routers } = await loadFixture(migratedFixture);
      const deadline = await registry.read.dwellDeadline([TAKER]);
      await time.setNextBlockTimestamp(deadline - 1n);
      await hre.network.provider.send("evm_mine", []);
      expect(await registry.read.prev([TAKER])).to.equal(getAddress(routers.a));
      expect((await registry.read.getFeature([TAKER]))[0]).to.equal(getAddress(routers.a));

      await time.setNextBlockTimestamp(deadline);
      await hre.network.provider.send("evm_mine", []);
      await expectRevert(registry.read.prev([TAKER]), "RouterRegistryDwellWindowClosed", [TAKER, deadline]);
      expect(await registry.read.getFeature([TAKER])).to.deep.equal([zeroAddress, getAddress(routers.b), zeroAddress, false]);
      expect(await registry.read.ownerOf([TAKER])).to.equal(getAddress(routers.b));
    });

    it("a changed dwell applies to the next activation", async () => {
      const { registry, routers, publicClient } = await loadFixture(activatedFixture);
      const hash = await registry.write.setDwell([600n]);
      const [event] = await eventsOf(hash);
      expect(event?.eventName).to.equal("DwellUpdated");
      expect(event?.args).to.deep.equal({ previousDwell: 3600n, newDwell: 600n });
      await registry.write.stage([TAKER, routers.b]);
      const activation = await registry.write.activate([TAKER]);
      const receipt = await publicClient.getTransactionReceipt({ hash: activation });
      const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
      expect(await registry.read.dwellDeadline([TAKER])).to.equal(block.timestamp + 600n);
      await time.increase(600);
      await expectRevert(registry.read.prev([TAKER]), "RouterRegistryDwellWindowClosed");
    });

    it("a zero dwell closes the window at once", async () => {
      const { registry, routers } = await loadFixture(activatedFixture);
      await registry.write.setDwell([0n]);
      await registry.write.stage([TAKER, routers.b]);
      await registry.write.activate([TAKER]);
      await expectRevert(registry.read.prev([TAKER]), "RouterRegistryDwellWindowClosed");
    });

    it("refuses a dwell longer than 30 days", async () => {
      const { registry } = await loadFixture(registryFixture);
      const tooLong = 30n * 86400n + 1n;
      await expectRevert(registry.simulate.setDwell([tooLong]), "RouterRegistryDwellTooLong", [tooLong, 30n * 86400n]);
    });
  });

  describe("pause", () => {
    it("a pauser halts the feature: ownerOf and prev revert, getFeature shows paused, and the event names who", async () => {
      const { registry, routers, pauser } = await loadFixture(migratedFixture);
      const hash = await registry.write.pause([TAKER], { account: pauser.account });
      await expectRevert(registry.read.ownerOf([TAKER]), "RouterRegistryFeaturePaused", [TAKER]);
      await expectRevert(registry.read.prev([TAKER]), "RouterRegistryFeaturePaused", [TAKER]);
      expect(await registry.read.getFeature([TAKER])).to.deep.equal([getAddress(routers.a), getAddress(routers.b), zeroAddress, true]);
      const [event] = await eventsOf(hash);
      expect(event?.eventName).to.equal("FeaturePaused");
      expect(event?.args).to.deep.equal({ featureId: TAKER, current: getAddress(routers.b), by: getAddress(pauser.account.address) });
    });

    it("pausing one feature leaves the others running", async () => {
      const { registry, routers } = await loadFixture(activatedFixture);
      await registry.write.stage([GASLESS, routers.c]);
      await registry.write.activate([GASLESS]);
      await registry.write.pause([TAKER]);
      expect(await registry.read.ownerOf([GASLESS])).to.equal(getAddress(routers.c));
    });

    it("an uninitialized feature can be paused ahead of its first activation", async () => {
      const { registry, routers } = await loadFixture(registryFixture);
      await registry.write.pause([GASLESS]);
      await registry.write.stage([GASLESS, routers.a]);
      await registry.write.activate([GASLESS]);
      await expectRevert(registry.read.ownerOf([GASLESS]), "RouterRegistryFeaturePaused", [GASLESS]);
    });

    it("refuses to pause twice and to unpause a running feature", async () => {
      const { registry } = await loadFixture(activatedFixture);
      await expectRevert(registry.simulate.unpause([TAKER]), "RouterRegistryFeatureNotPaused", [TAKER]);
      await registry.write.pause([TAKER]);
      await expectRevert(registry.simulate.pause([TAKER]), "RouterRegistryFeaturePaused", [TAKER]);
    });

    it("the administrator unpauses and the current router is active again", async () => {
      const { registry, routers } = await loadFixture(activatedFixture);
      await registry.write.pause([TAKER]);
      const hash = await registry.write.unpause([TAKER]);
      expect(await registry.read.ownerOf([TAKER])).to.equal(getAddress(routers.a));
      const [event] = await eventsOf(hash);
      expect(event?.eventName).to.equal("FeatureUnpaused");
      expect(event?.args).to.deep.equal({ featureId: TAKER, current: getAddress(routers.a) });
    });
  });

  describe("access control", () => {
    type Registry = Awaited<ReturnType<typeof registryFixture>>["registry"];
    type Call = { name: string; send: (registry: Registry, routers: Record<string, Address>, account: Address) => Promise<unknown> };
    const adminOnly: Call[] = [
      { name: "stage", send: (r, routers, account) => r.simulate.stage([TAKER, routers.b!], { account }) },
      { name: "unstage", send: (r, _routers, account) => r.simulate.unstage([TAKER], { account }) },
      { name: "activate", send: (r, _routers, account) => r.simulate.activate([TAKER], { account }) },
      { name: "unpause", send: (r, _routers, account) => r.simulate.unpause([TAKER], { account }) },
      { name: "setDwell", send: (r, _routers, account) => r.simulate.setDwell([60n], { account }) },
      { name: "setPauser", send: (r, _routers, account) => r.simulate.setPauser(["0x0000000000000000000000000000000000000001", true], { account }) },
      { name: "proposeAdmin", send: (r, _routers, account) => r.simulate.proposeAdmin(["0x0000000000000000000000000000000000000001"], { account }) },
    ];

    for (const call of adminOnly) {
      it(`${call.name} is refused to a stranger and to a pauser`, async () => {
        const { registry, routers, stranger, pauser } = await loadFixture(activatedFixture);
        await registry.write.stage([TAKER, routers.c]);
        await registry.write.pause([TAKER]);
        for (const wallet of [stranger, pauser]) {
          await expectRevert(call.send(registry, routers, wallet.account.address), "RouterRegistryUnauthorized", [getAddress(wallet.account.address)]);
        }
      });
    }

    it("pause is refused to a stranger and to a pauser whose role was revoked", async () => {
      const { registry, stranger, pauser } = await loadFixture(activatedFixture);
      await expectRevert(registry.simulate.pause([TAKER], { account: stranger.account }), "RouterRegistryUnauthorized", [getAddress(stranger.account.address)]);
      const hash = await registry.write.setPauser([pauser.account.address, false]);
      const [event] = await eventsOf(hash);
      expect(event?.eventName).to.equal("PauserUpdated");
      expect(event?.args).to.deep.equal({ account: getAddress(pauser.account.address), enabled: false });
      expect(await registry.read.isPauser([pauser.account.address])).to.equal(false);
      await expectRevert(registry.simulate.pause([TAKER], { account: pauser.account }), "RouterRegistryUnauthorized", [getAddress(pauser.account.address)]);
    });

    it("the administrator can pause without holding the pauser role", async () => {
      const { registry, admin } = await loadFixture(activatedFixture);
      expect(await registry.read.isPauser([admin.account.address])).to.equal(false);
      await registry.write.pause([TAKER]);
      expect((await registry.read.getFeature([TAKER]))[3]).to.equal(true);
    });

    it("refuses the zero address as pauser", async () => {
      const { registry } = await loadFixture(registryFixture);
      await expectRevert(registry.simulate.setPauser([zeroAddress, true]), "RouterRegistryZeroAddress");
    });
  });

  describe("administrator handover", () => {
    it("moves in two steps: propose, then accept by the proposed account", async () => {
      const { registry, admin, successor } = await loadFixture(registryFixture);
      const proposal = await registry.write.proposeAdmin([successor.account.address]);
      expect(await registry.read.admin()).to.equal(getAddress(admin.account.address));
      expect(await registry.read.pendingAdmin()).to.equal(getAddress(successor.account.address));
      const [proposed] = await eventsOf(proposal);
      expect(proposed?.eventName).to.equal("AdminProposed");
      expect(proposed?.args).to.deep.equal({ admin: getAddress(admin.account.address), proposed: getAddress(successor.account.address) });

      const acceptance = await registry.write.acceptAdmin({ account: successor.account });
      expect(await registry.read.admin()).to.equal(getAddress(successor.account.address));
      expect(await registry.read.pendingAdmin()).to.equal(zeroAddress);
      const [transferred] = await eventsOf(acceptance);
      expect(transferred?.eventName).to.equal("AdminTransferred");
      expect(transferred?.args).to.deep.equal({
        previousAdmin: getAddress(admin.account.address),
        newAdmin: getAddress(successor.account.address),
      });
      await expectRevert(registry.simulate.setDwell([1n]), "RouterRegistryUnauthorized", [getAddress(admin.account.address)]);
      await registry.write.setDwell([1n], { account: successor.account });
      expect(await registry.read.dwell()).to.equal(1n);
    });

    it("only the proposed account can accept, and proposing zero cancels", async () => {
      const { registry, stranger, successor } = await loadFixture(registryFixture);
      await expectRevert(registry.simulate.acceptAdmin({ account: successor.account }), "RouterRegistryUnauthorized", [getAddress(successor.account.address)]);
      await registry.write.proposeAdmin([successor.account.address]);
      await expectRevert(registry.simulate.acceptAdmin({ account: stranger.account }), "RouterRegistryUnauthorized", [getAddress(stranger.account.address)]);
      await registry.write.proposeAdmin([zeroAddress]);
      await expectRevert(registry.simulate.acceptAdmin({ account: successor.account }), "RouterRegistryUnauthorized", [getAddress(successor.account.address)]);
    });
  });
});
