import { expect } from "chai";
import { join } from "node:path";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { decodeFunctionData, erc20Abi, http, parseUnits, type Hex, type LocalAccount } from "viem";
import { gaslessSwapRouterAbi, type RelayJson, type SwapOrder } from "../../sdk";
import { findFill } from "../../relayer/orderState";
import { signedGaslessCalldata } from "../fixtures/signedGasless";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { openStore } from "../../api/store/openStore";
import { openIntegratorAdministration } from "../../api/store/openIntegratorAdministration";
import { openSqliteRelayStore } from "../../relayer/store/sqliteRelayStore";
import { runIntegratorsCommand } from "../../scripts/integrators";
import { fundedTakers, gaslessReadyFixture, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import { runScript } from "../fixtures/runScript";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

/**
 * A relayed swap that reverts on chain costs the operator gas and pays no fee (audit H-1). Each one
 * is counted against its taker and its integrator; past RELAYER_MAX_REVERTS_PER_TAKER (2) and
 * RELAYER_MAX_REVERTS_PER_INTEGRATOR (here 3) in a day, new gasless quotes are refused, until the
 * operator clears them with `npm run integrators`. The chain is Hardhat's, mining on send, behind a
 * proxy that lets the taker empty its wallet right before the relayer's broadcast.
 */
describe("reverted relays count against their taker and integrator, and block them (audit H-1)", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let proxy: RpcProxy;
  let stack: GaslessStack;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    proxy = await startRpcProxy(chain.url);
    stack = await startGaslessStack(f, {
      relayerTransport: http(proxy.url, { retryCount: 0, timeout: 5_000 }),
      relayerEnv: { RELAYER_MAX_REVERTS_PER_INTEGRATOR: "3" },
    });
  });
  afterEach(async () => {
    await stack.close();
    await proxy.close();
    await chain.close();
  });

  const usdc = () => hre.viem.getContractAt("DevToken", f.token("USDC"), { client: { public: f.publicClient, wallet: f.deployer } });

  /** A gasless relay for `taker` whose swap is mined and reverts: the taker moves its USDC away just before the broadcast. */
  const revertedRelay = async (taker: LocalAccount): Promise<RelayJson> => {
    const quote = (await stack.gaslessQuote(taker.address, { sell_amount: parseUnits("100", 6) })).body;
    const signature = await stack.sign(quote, taker);
    proxy.before("eth_sendRawTransaction", async () => {
      const wallet = await hre.viem.getWalletClient(taker.address, { account: taker });
      const all = await balanceOf(f, f.token("USDC"), taker.address);
      await f.publicClient.waitForTransactionReceipt({
        hash: await wallet.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "transfer", args: [f.stranger.account.address, all] }),
      });
      return true;
    });
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const relay = await stack.waitFor(submitted.body.relay_id);
    // Refill for the next round.
    await f.publicClient.waitForTransactionReceipt({ hash: await (await usdc()).write.mint([taker.address, parseUnits("100000", 6)]) });
    return relay;
  };

  const gaslessQuoteStatus = async (taker: LocalAccount) => {
    const response = await stack.gaslessQuote(taker.address, { sell_amount: parseUnits("100", 6) });
    return [response.status, response.body.code ?? null];
  };

  it("a mined revert on a chain that mines on send is failed/reverted (never simulation_failed); two block the taker, three the integrator's keys; the operator sees and clears them", async () => {
    const [alice, bob] = await fundedTakers(f, 2);
    const first = await revertedRelay(alice!);
    expect([first.status, first.reason], JSON.stringify(first)).to.deep.equal(["failed", "reverted"]);
    expect(first.transactions.filter((transaction) => transaction.mined)).to.have.length(1);
    expect((await f.publicClient.getTransactionReceipt({ hash: first.tx_hash! })).status).to.equal("reverted");
    expect(await gaslessQuoteStatus(alice!)).to.deep.equal([200, null]);

    expect((await revertedRelay(alice!)).reason).to.equal("reverted");
    const blocked = await stack.gaslessQuote(alice!.address, { sell_amount: parseUnits("100", 6) });
    expect([blocked.status, blocked.body.code]).to.deep.equal([403, "gasless_taker_blocked"]);
    expect(blocked.body.error).to.match(/permit2_owner/);
    // Only gasless quotes: the taker may still send swaps itself, and other takers still relay.
    expect((await stack.api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("100", 6), taker: alice!.address })).status).to.equal(200);
    expect(await gaslessQuoteStatus(bob!)).to.deep.equal([200, null]);

    expect((await revertedRelay(bob!)).reason).to.equal("reverted");
    expect(await gaslessQuoteStatus(bob!)).to.deep.equal([403, "gasless_integrator_blocked"]);

    // The operator's view, as a separate process on the relayer's and the API's databases.
    const env = { API_DB_PATH: stack.api.dbPath, RELAYER_DB_PATH: join(stack.directory, "relayer.sqlite"), RELAYER_MAX_REVERTS_PER_INTEGRATOR: "3" };
    const listed = await runScript("scripts/integrators.ts", ["reverts", "--json"], env);
    expect(listed.status, listed.stderr).to.equal(0);
    const counts = (JSON.parse(listed.stdout) as { counts: { kind: string; subject: string; reverts: number; blocked: boolean }[] }).counts;
    const slug = `quote-${stack.api.owner.address.slice(2, 10).toLowerCase()}`;
    expect(counts.map((row) => [row.kind, row.subject, row.reverts, row.blocked])).to.deep.equal([
      ["integrator", slug, 3, true],
      ["taker", alice!.address, 2, true],
      ["taker", bob!.address, 1, false],
    ]);

    const cleared = await runScript("scripts/integrators.ts", ["clear-reverts", slug], env);
    expect([cleared.status, cleared.stdout.trim()]).to.deep.equal([0, `cleared 3 reverted relays of integrator ${slug}`]);
    expect(await gaslessQuoteStatus(bob!)).to.deep.equal([200, null]);
    expect(await gaslessQuoteStatus(alice!)).to.deep.equal([403, "gasless_taker_blocked"]);

    // In-process too, with the command's own context.
    const store = await openStore(stack.api.config);
    const admin = await openIntegratorAdministration(stack.api.config);
    const output: string[] = [];
    try {
      const relayer = { open: async () => openSqliteRelayStore(join(stack.directory, "relayer.sqlite")), limits: { taker: 2, integrator: 3 } };
      expect(await runIntegratorsCommand(["clear-reverts", alice!.address.toLowerCase()], { store, admin, print: (line) => output.push(line), now: new Date(), defaultActor: "ops", relayer })).to.equal(0);
      expect(output).to.deep.equal([`cleared 2 reverted relays of taker ${alice!.address}`]);
    } finally {
      await admin.close();
      await store.close();
    }
    expect(await gaslessQuoteStatus(alice!)).to.deep.equal([200, null]);
  });

  it("a quote taken before its taker was blocked is refused when submitted: 403 gasless_taker_blocked from the relayer's own count, nothing sent", async () => {
    const [carol] = await fundedTakers(f, 1);
    const early = (await stack.gaslessQuote(carol!.address, { sell_amount: parseUnits("100", 6) })).body;
    const earlySignature = await stack.sign(early, carol!);
    await revertedRelay(carol!);
    await revertedRelay(carol!);
    const signerNonces = async () => Promise.all(relayerAccounts().signers.map((signer) => f.publicClient.getTransactionCount({ address: signer.address })));
    const before = await signerNonces();
    const submitted = await stack.submit({ quote_id: early.quote_id, signature: earlySignature });
    expect([submitted.status, submitted.body.code], JSON.stringify(submitted.body)).to.deep.equal([403, "gasless_taker_blocked"]);
    expect(submitted.body.error).to.match(/2 relayed swaps revert in the last 24 hours \(limit 2\)/);
    expect(await signerNonces(), "the relayer sent nothing").to.deep.equal(before);
  });

  it("a settlement of someone else's order carrying the relay's quote id is not the relay's fill (audit L-1): the relay whose swap reverted ends failed, not confirmed", async () => {
    const [victim] = await fundedTakers(f, 1);
    const quote = (await stack.gaslessQuote(victim!.address, { sell_amount: parseUnits("100", 6) })).body;
    const quoteId = quote.permit2.message.witness.quoteId as Hex;
    // The attacker's own order (a quote of theirs), with the victim's quote id put in, signed by them.
    const own = (await stack.gaslessQuote(f.taker.account.address, { sell_amount: parseUnits("50", 6) })).body;
    const { args } = decodeFunctionData({ abi: gaslessSwapRouterAbi, data: own.tx.data as Hex });
    if (args[0] === undefined || typeof args[0] !== "object") throw new Error("not swapGasless calldata");
    const order = { ...(args[0] as SwapOrder), quoteId };
    const attack = await signedGaslessCalldata(f, { order, nonce: BigInt(own.permit2.message.nonce), relayerFee: 0n, relayerFeeRecipient: f.taker.account.address });
    proxy.before("eth_sendRawTransaction", async () => {
      // Right before the relayer's broadcast: the attacker settles, and the victim's swap is made to revert.
      await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: attack }) });
      const wallet = await hre.viem.getWalletClient(victim!.address, { account: victim! });
      const all = await balanceOf(f, f.token("USDC"), victim!.address);
      await f.publicClient.waitForTransactionReceipt({
        hash: await wallet.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "transfer", args: [f.stranger.account.address, all] }),
      });
      return true;
    });
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, victim!) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const relay = await stack.waitFor(submitted.body.relay_id);
    expect([relay.status, relay.reason], JSON.stringify(relay)).to.deep.equal(["failed", "reverted"]);
    // The attacker's settlement did carry the quote id: only its taker and nonce tell it apart.
    const settled = await f.publicClient.getContractEvents({ address: f.contracts.gaslessSwapRouter, abi: gaslessSwapRouterAbi, eventName: "SwapSettled", args: { quoteId }, fromBlock: 0n });
    expect(settled.map((log) => log.args.taker)).to.deep.equal([f.taker.account.address]);
    expect(relay.transactions.map((transaction) => transaction.signer)).to.not.include(f.taker.account.address);
    expect(await findFill(f.publicClient, f.contracts.permit2, { router: f.contracts.gaslessSwapRouter, onchainQuoteId: quoteId, acceptedBlock: 0n, taker: victim!.address, permit2Nonce: BigInt(quote.permit2.message.nonce) })).to.equal(undefined);
  });
});
