import { expect } from "chai";
import hre from "hardhat";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, http, type PublicClient } from "viem";
import { ChainFileError, chainFilePath, externalAddressesOf, listChainFiles, readChainFile } from "../../sdk/chain/chainFile";
import { manifestPath } from "../../sdk/chain/manifest";
import { selectChainFile } from "../../sdk/chain/selectChainFile";
import { startAnvilNode, type AnvilNode } from "../../scripts/bench/anvilChain";
import { checkChainFile } from "../../scripts/deploy/checkChainFile";
import { DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_SIGNER } from "../../scripts/deploy/deterministicDeployer";
import { deployDevnet } from "../../scripts/deploy/deployDevnet";
import { STANDIN_CHAIN_FILE } from "../../scripts/standin/standInChain";

const CHAINS = join(hre.config.paths.root, "chains");

describe("chain files: the shipped ones, their schema, and the devnet's against a fresh devnet", function () {
  this.timeout(180_000);
  let directory: string;

  before(() => {
    directory = mkdtempSync(join(tmpdir(), "chain-files-"));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it("ships devnet and 4663, both chain id 4663, each external address with its source; 4663's unknown addresses are null, not invented", () => {
    expect(readdirSync(CHAINS).sort()).to.deep.equal(["4663.json", "devnet.json"]);
    const files = listChainFiles(CHAINS);
    expect(files.map((file) => [file.name, file.chainId])).to.deep.equal([
      ["4663", 4663],
      ["devnet", 4663],
    ]);
    const live = readChainFile(chainFilePath(CHAINS, "4663"));
    expect(live.permit2.address).to.equal("0x000000000022D473030F116dDEE9F6B43aC78BA3");
    expect(live.deterministicDeployer.address).to.equal("0x4e59b44847b379578588920cA78FbF26c0B4956C");
    for (const { field, address } of externalAddressesOf(live)) {
      if (field === "permit2.address" || field === "deterministicDeployer.address") continue;
      expect(address, field).to.equal(null);
    }
    for (const file of [...files, readChainFile(STANDIN_CHAIN_FILE)]) {
      const sources = [file.permit2, file.wrappedNative, file.deterministicDeployer, ...file.venues.flatMap((venue) => (venue.type === "uniswap-v3" ? [venue.factory, venue.quoter, venue.positionManager] : [venue.factory]))];
      for (const entry of sources) expect(entry.source.length, `${file.name}: ${entry.address}`).to.be.greaterThan(10);
      for (const entry of sources) if (entry.address === null) expect(entry.source, file.name).to.match(/^unknown/);
    }
  });

  it("refuses malformed chain files, naming the field: two V2 venues, five V3 venues, a missing source, a name other than its file's", () => {
    const base = JSON.parse(JSON.stringify(readChainFile(chainFilePath(CHAINS, "devnet")))) as Record<string, unknown> & { venues: Record<string, unknown>[]; permit2: Record<string, unknown> };
    const write = (name: string, content: unknown) => {
      const file = join(directory, `${name}.json`);
      writeFileSync(file, JSON.stringify(content));
      return () => readChainFile(file);
    };
    const v2 = base.venues[0]!;
    const v3 = base.venues[1]!;
    expect(write("twov2", { ...base, name: "twov2", venues: [v2, { ...v2, name: "sushi-v2" }] })).to.throw(ChainFileError, "invalid at venues: the routers take exactly one uniswap-v2 venue; the file lists 2");
    expect(write("fivev3", { ...base, name: "fivev3", venues: [v2, ...[1, 2, 3, 4, 5].map((n) => ({ ...v3, name: `v3-${n}` }))] })).to.throw(ChainFileError, "at most 4 uniswap-v3 venues");
    expect(write("nosource", { ...base, name: "nosource", permit2: { address: base.permit2.address } })).to.throw(ChainFileError, "invalid at permit2.source");
    expect(write("misnamed", { ...base, name: "devnet" })).to.throw(ChainFileError, 'says name "devnet"');
    expect(write("badaddress", { ...base, name: "badaddress", permit2: { address: "0x1234", source: "a typo" } })).to.throw(ChainFileError, "invalid at permit2.address");
  });

  describe("against a fresh devnet (the devnet's deploy on a new Anvil node)", () => {
    let node: AnvilNode;
    let client: PublicClient;

    before(async () => {
      node = await startAnvilNode();
      await deployDevnet(hre, manifestPath(join(directory, "devnet"), 4663), node.provider);
      client = createPublicClient({ transport: http(node.rpcUrl, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
    });
    after(async () => node?.stop());

    it("devnet.json names the devnet's own Permit2, WETH and venues: every check passes, and chain id 4663 alone picks devnet (4663's file has unknown addresses)", async () => {
      const devnet = readChainFile(chainFilePath(CHAINS, "devnet"));
      // The deterministic deployer is the one address the devnet may lack (Anvil ships it): it is not a problem either way.
      expect(await checkChainFile(client, devnet, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")).to.deep.equal([]);
      expect((await selectChainFile("4663", { directory: CHAINS, client })).name).to.equal("devnet");
      expect((await selectChainFile("devnet", { directory: CHAINS, client })).name).to.equal("devnet");
    });

    it("without the deterministic deployer, a chain where its keyless signer already used nonce 0, or whose base fee is above the keyless transaction's 100 gwei, is refused before anything is funded", async () => {
      const devnet = readChainFile(chainFilePath(CHAINS, "devnet"));
      const rpc = (method: string, params: unknown[]) => client.request({ method: method as never, params: params as never });
      const [code, nonce] = await Promise.all([client.getCode({ address: DETERMINISTIC_DEPLOYER }), client.getTransactionCount({ address: DETERMINISTIC_DEPLOYER_SIGNER })]);
      try {
        await rpc("anvil_setCode", [DETERMINISTIC_DEPLOYER, "0x"]);
        expect(await checkChainFile(client, devnet, DETERMINISTIC_DEPLOYER_SIGNER), "absent, and placeable").to.deep.equal([]);
        await rpc("anvil_setNonce", [DETERMINISTIC_DEPLOYER_SIGNER, "0x1"]);
        await rpc("anvil_setNextBlockBaseFeePerGas", ["0x" + (150n * 10n ** 9n).toString(16)]);
        await rpc("evm_mine", []);
        const problems = await checkChainFile(client, devnet, DETERMINISTIC_DEPLOYER_SIGNER);
        expect(problems.map((problem) => problem.field)).to.deep.equal(["deterministicDeployer.address", "deterministicDeployer.address"]);
        expect(problems[0]!.problem).to.include("has already sent 1 transaction(s) here, so its deployment (nonce 0) can never be mined");
        expect(problems[1]!.problem).to.include("fixed 100 gwei, below the chain's base fee of 150");
      } finally {
        await rpc("anvil_setCode", [DETERMINISTIC_DEPLOYER, code ?? "0x"]);
        await rpc("anvil_setNonce", [DETERMINISTIC_DEPLOYER_SIGNER, `0x${nonce.toString(16)}`]);
        await rpc("anvil_setNextBlockBaseFeePerGas", ["0x3b9aca00"]);
        await rpc("evm_mine", []);
      }
    });

    it("a chain file for another chain id is refused, naming chainId", async () => {
      const other = { ...readChainFile(chainFilePath(CHAINS, "devnet")), name: "otherchain", chainId: 1 };
      writeFileSync(join(directory, "otherchain.json"), JSON.stringify(other));
      const failure = await selectChainFile("otherchain", { directory, client }).then(
        () => "selected",
        (error: Error) => error.message,
      );
      expect(failure).to.include("is for chain id 1, but the RPC serves chain 4663 (field chainId)");
      expect(await selectChainFile("1", { directory, client }).catch((error: Error) => error.message)).to.include("--chain 1 names chain id 1, but the RPC serves chain 4663");
    });
  });
});
