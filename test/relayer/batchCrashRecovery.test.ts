import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { join } from "node:path";
import type { LocalAccount } from "viem";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { freePort } from "../../scripts/devnet/freePort";
import { spawnService, type SpawnedService } from "../../scripts/devnet/spawnService";
import { fundedTakers, gaslessReadyFixture, RELAYER_TOKEN, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { settlementsByQuote, submitTogether } from "../fixtures/batchRelays";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/**
 * A batching relayer as production runs it, a child process, killed with SIGKILL before and after
 * it broadcasts a batch and restarted on the same database: every relay of the batch must end
 * confirmed with exactly one SwapSettled for its quote.
 */
describe("batch crash safety (a real child process, SIGKILL)", function () {
  this.timeout(180_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let proxy: RpcProxy;
  let stack: GaslessStack;
  let port: number;
  let relayer: SpawnedService | undefined;
  let takers: LocalAccount[];

  const startRelayerProcess = async () => {
    relayer = await spawnService(
      "relayer/main.ts",
      {
        RELAYER_PRIVATE_KEYS: relayerAccounts(1).signers.map((account) => account.privateKey).join(","),
        RELAYER_INTERNAL_TOKEN: RELAYER_TOKEN,
        RPC_URL: proxy.url,
        DEPLOYMENTS_DIR: stack.directory,
        RELAYER_DB_PATH: join(stack.directory, "relayer.sqlite"),
        RELAYER_PORT: String(port),
        RELAYER_POLL_MS: "50",
        RELAYER_LOG_LEVEL: "warn",
        // One signer that waits for more: the hand-offs of a test go out in one batch.
        RELAYER_BATCH_WAIT_MS: "1500",
      },
      /^Relayer on (\S+)$/m,
    );
  };

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    takers = await fundedTakers(f, 3);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    proxy = await startRpcProxy(chain.url);
    port = await freePort();
    stack = await startGaslessStack(f, { relayerUrl: `http://127.0.0.1:${port}` });
    await startRelayerProcess();
  });
  afterEach(async () => {
    await setAutomine(true);
    await relayer?.stop("SIGKILL");
    await stack.close();
    await proxy.close();
    await chain.close();
  });

  async function waitForProxyToSee(method: string) {
    const until = Date.now() + 15_000;
    while (!proxy.seen.includes(method)) {
      if (Date.now() > until) throw new Error(`the relayer never called ${method}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Every relay confirmed, all by one transaction, each quote settled exactly once. */
  async function expectBatchSettledOnce(relays: Awaited<ReturnType<typeof submitTogether>>) {
    const done = await Promise.all(relays.map(({ relayId }) => stack.waitFor(relayId)));
    expect(done.map((relay) => relay.status)).to.deep.equal(relays.map(() => "confirmed"));
    const settled = await settlementsByQuote(f);
    expect(relays.map(({ onchainQuoteId }) => settled.get(onchainQuoteId))).to.deep.equal(relays.map(() => 1));
    return done;
  }

  it("killed while simulating the batch (nothing recorded): the restarted relayer sends the batch once", async () => {
    proxy.refuse("eth_call", "eth_sendRawTransaction");
    const relays = await submitTogether(stack, takers);
    await waitForProxyToSee("eth_call");
    await relayer!.stop("SIGKILL");
    proxy.allow();
    await startRelayerProcess();
    const done = await expectBatchSettledOnce(relays);
    expect(new Set(done.map((relay) => relay.tx_hash)).size).to.equal(1);
    expect(done.map((relay) => relay.batch?.size)).to.deep.equal([3, 3, 3]);
  });

  it("killed after the batch was recorded but before the node took it: the restarted relayer sends the recorded batch, not another", async () => {
    proxy.refuse("eth_sendRawTransaction");
    const relays = await submitTogether(stack, takers);
    await waitForProxyToSee("eth_sendRawTransaction");
    await relayer!.stop("SIGKILL");
    proxy.allow();
    await startRelayerProcess();
    const done = await expectBatchSettledOnce(relays);
    expect(done.every((relay) => relay.transactions.length === 1 && relay.tx_hash === done[0]!.tx_hash)).to.equal(true);
  });

  it("killed after broadcasting the batch, mined while it was down: the restarted relayer finds the receipt and ends each relay from its events", async () => {
    await setAutomine(false);
    const relays = await submitTogether(stack, takers);
    const pending = await Promise.all(relays.map(({ relayId }) => stack.waitFor(relayId, (relay) => relay.status === "submitted")));
    await relayer!.stop("SIGKILL");
    await mine(1);
    await setAutomine(true);
    await startRelayerProcess();
    const done = await expectBatchSettledOnce(relays);
    expect(done.map((relay) => relay.tx_hash)).to.deep.equal(pending.map((relay) => relay.tx_hash));
    expect(new Set(done.map((relay) => relay.tx_hash)).size).to.equal(1);
  });
});
