import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readManifest, writeManifest, type DeploymentManifest } from "../../sdk/chain/manifest";
import { UNISWAP_V2_PAIR_INIT_CODE_HASH, uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { keccak256 } from "viem";
import { settlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";

describe("the deployment manifest's venues and pools", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "manifest-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  async function devnetManifest(): Promise<DeploymentManifest> {
    return fixtureManifest(await loadFixture(settlementFixture));
  }

  /** Writes `edit` of the devnet manifest as raw JSON and reads it back through the schema. */
  async function readEdited(edit: (json: Record<string, any>) => void): Promise<DeploymentManifest> {
    const file = join(directory, "4663.json");
    const json = JSON.parse(JSON.stringify(await devnetManifest())) as Record<string, any>;
    edit(json);
    writeFileSync(file, JSON.stringify(json));
    return readManifest(file);
  }

  /** The message `read` fails with. */
  async function failure(read: Promise<unknown>): Promise<string> {
    try {
      await read;
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error("the manifest was accepted");
  }

  it("round-trips the devnet's manifest, every venue and pool as deployed, through its schema", async () => {
    const manifest = await devnetManifest();
    const file = join(directory, "4663.json");
    writeManifest(file, manifest);
    expect(readManifest(file)).to.deep.equal(manifest);
    expect(manifest.venues.map((venue) => [venue.name, venue.type])).to.deep.equal([
      ["uniswap-v2", "uniswap-v2"],
      ["uniswap-v3", "uniswap-v3"],
      ["forkswap-v3", "uniswap-v3"],
    ]);
    // The V2 venue's init-code hash is its pair's, as deployed from npm.
    expect(manifest.venues[0]!.poolInitCodeHash).to.equal(keccak256(uniswapArtifacts.pair().bytecode));
    expect(manifest.venues[0]).to.deep.include({ factory: manifest.contracts.uniswapV2Factory, feeTiers: [{ fee: 3000 }] });
    const forkswap = manifest.venues[2]!;
    expect(forkswap.type === "uniswap-v3" && forkswap.feeTiers).to.deep.include.members([{ fee: 2500, tickSpacing: 50 }, { fee: 100, tickSpacing: 1 }]);
    for (const venue of manifest.venues) expect(manifest.pools.some((pool) => pool.source === venue.name)).to.equal(true);
  });

  it("reads a manifest from before venues: its pools are V2 pools of the V2 factory's venue", async () => {
    const manifest = await readEdited((json) => {
      delete json.venues;
      json.pools = json.pools.filter((pool: { type: string }) => pool.type === "uniswap-v2").map(({ type: _type, ...pool }: Record<string, unknown>) => pool);
    });
    expect(manifest.venues).to.deep.equal([
      { name: "uniswap-v2", type: "uniswap-v2", factory: manifest.contracts.uniswapV2Factory, poolInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH, feeTiers: [{ fee: 3000 }], startBlock: manifest.deployBlock },
    ]);
    expect(manifest.pools.length).to.be.greaterThan(0);
    expect(manifest.pools.every((pool) => pool.type === "uniswap-v2" && pool.source === "uniswap-v2")).to.equal(true);
  });

  it("refuses a pool whose venue is not listed, or of another type, naming the pool's field", async () => {
    const v3Index = (json: Record<string, any>) => json.pools.findIndex((pool: { type: string }) => pool.type === "uniswap-v3");
    let index = -1;
    const unknown = readEdited((json) => {
      index = v3Index(json);
      json.pools[index].source = "nowhere-v3";
    });
    expect(await failure(unknown)).to.match(new RegExp(`invalid at pools\\.${index}\\.source: no uniswap-v3 venue named nowhere-v3`));
    const wrongType = readEdited((json) => {
      index = v3Index(json);
      json.pools[index].source = "uniswap-v2";
    });
    expect(await failure(wrongType)).to.match(/invalid at pools\.\d+\.source: no uniswap-v3 venue named uniswap-v2/);
  });

  it("refuses a V3 pool on a fee tier its venue does not have, and a venue listed twice", async () => {
    const offTier = readEdited((json) => {
      const pool = json.pools.find((candidate: { type: string; source: string }) => candidate.type === "uniswap-v3" && candidate.source === "uniswap-v3");
      pool.fee = 2500; // forkswap-v3's tier, not Uniswap V3's
      pool.tickSpacing = 50;
    });
    expect(await failure(offTier)).to.match(/invalid at pools\.\d+\.fee: venue uniswap-v3 has no fee tier 2500 with tick spacing 50/);
    const twice = readEdited((json) => json.venues.push(json.venues[1]));
    expect(await failure(twice)).to.match(/invalid at venues\.3\.name: venue uniswap-v3 is listed twice/);
    const badType = readEdited((json) => (json.venues[1].type = "curve"));
    expect(await failure(badType)).to.match(/invalid at venues\.1\.type/);
  });

  it("keeps the manifest file's V2 pools as they were, plus their type", async () => {
    const file = join(directory, "4663.json");
    writeManifest(file, await devnetManifest());
    const written = JSON.parse(readFileSync(file, "utf8")) as { pools: Record<string, unknown>[] };
    expect(Object.keys(written.pools[0]!).sort()).to.deep.equal(["address", "feeBps", "source", "token0", "token1", "type"]);
    const v3 = written.pools.find((pool) => pool.type === "uniswap-v3")!;
    expect(Object.keys(v3).sort()).to.deep.equal(["address", "fee", "source", "tickSpacing", "token0", "token1", "type"]);
  });
});
