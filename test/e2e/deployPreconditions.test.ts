import { expect } from "chai";
import hre from "hardhat";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readChainManifest } from "../../api/chains/loadChains";
import { readManifest } from "../../sdk";
import { deployDevnet } from "../../scripts/deploy/deployDevnet";
import { startAnvilNode, type AnvilNode } from "../../scripts/bench/anvilChain";
import { connectToChain } from "../../scripts/chainConnection";
import { scaledTimeout } from "../fixtures/testTimeouts";

const ADVICE = "start the devnet with `npm start` (it deploys the contracts and writes the manifest), or point";

/**
 * What the tools say when a chain has no deployment manifest (the devnet is the only chain that deploys
 * itself for now), and what the devnet's deploy says on a node with too few funded accounts: Anvil
 * and `hardhat node` elsewhere unlock 10, the devnet uses 20.
 */
describe("deploying and finding a deployment: a node with anvil's default 10 accounts, a chain without a manifest", function () {
  this.timeout(scaledTimeout(120_000));
  let node: AnvilNode | undefined;
  let directory: string;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "deploy-preconditions-"));
    // Anvil's own default: 10 development accounts.
    node = await startAnvilNode(10);
  });
  after(async () => {
    await node?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("the devnet deploy refuses a node with 10 accounts at once, saying it needs 20 and how to get them, before any transaction", async () => {
    const refused = await deployDevnet(hre, join(directory, "4663.json"), node!.provider).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).to.equal(
      "the devnet needs 20 funded development accounts (#0 deployer, #1-#9 takers, #12 smart-wallet owner, #15 relayer fee recipient, #16-#19 relayer signers) and this node unlocks 10: " +
        "start it with 20 (anvil --accounts 20; Hardhat: networks.hardhat.accounts.count). Nothing was deployed.",
    );
    expect(await node!.provider.request({ method: "eth_blockNumber" })).to.equal("0x0");
  });

  it("a tool connecting to a chain without a manifest says to start the devnet or point DEPLOYMENTS_DIR at one, not that npm start writes it", async () => {
    const refused = await connectToChain({ rpcUrl: node!.rpcUrl, deploymentsDir: directory }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).to.equal(`chain 4663 at ${node!.rpcUrl} has no deployment manifest at ${join(directory, "4663.json")}: ${ADVICE} DEPLOYMENTS_DIR at the folder holding the manifest of contracts deployed on this chain`);
  });

  it("the API and the relayer (readManifest) say the same about a missing manifest, naming their settings", () => {
    const file = join(directory, "7.json");
    expect(() => readChainManifest({ chainId: 7, rpcUrl: "http://127.0.0.1:1", manifestPath: file })).to.throw(
      `no deployment manifest for chain 7 at ${file}: ${ADVICE} DEPLOYMENTS_DIR (the default chain) or API_CHAINS' manifest (the others) at the folder holding the manifest of contracts deployed on this chain`,
    );
    expect(() => readManifest(file)).to.throw(`no deployment manifest at ${file}: ${ADVICE} DEPLOYMENTS_DIR at the folder`);
  });
});
