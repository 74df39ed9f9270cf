import { expect } from "chai";
import { join } from "node:path";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { decodeFunctionData, erc20Abi, http, parseUnits, type Hex, type LocalAccount } from "viem";
import { gaslessSwapRouterAbi, type RelayJson, type SwapOrder } from "../../sdk";
import { findFill } from "../../relayer/intake/orderState";
import { signedGaslessCalldata } from "../fixtures/signedGasless";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { openStore } from "../../api/store/openStore";
import { openIntegratorAdministration } from "../../api/store/openIntegratorAdministration";
import { openSqliteRelayStore } from "../../relayer/store/openRelayStore";
import { runIntegratorsCommand } from "../../scripts/integrators";
import { fundedTakers, gaslessReadyFixture, relayerAccounts, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { startRpcProxy, type RpcProxy } from "../fixtures/rpcProxy";
import { runScript } from "../fixtures/runScript";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

/**
 * The gas of one of these reverted swaps (the taker's transfer fails inside the route), measured on
 * this fixture: the budgets below are set between whole numbers of reverts, and each revert's ledger
 * entry is checked to stay within 20 % of it, so a change of the swap's gas fails here by name.
 */
const REVERTED_SWAP_GAS = 75_000n;
/** Past the first revert, within the second: the taker's budget. Past the second, within the third: the integrator's. */
const TAKER_BUDGET = (REVERTED_SWAP_GAS * 3n) / 2n;
const INTEGRATOR_BUDGET = (REVERTED_SWAP_GAS * 5n) / 2n;

/**
 * A relayed swap that reverts on chain costs the operator gas and pays no fee (audit H-1). Its gas
 * (the receipt's) is written to the unpaid-gas ledger, charged to its taker and its integrator; once
 * RELAYER_TAKER_GAS_BUDGET or RELAYER_INTEGRATOR_GAS_BUDGET is spent in a day, new gasless quotes are
 * refused with the budget named and when it frees up, until then or until the operator clears the
 * charges with `npm run integrators`. The chain is Hardhat's, mining on send, behind a proxy that lets
 * the taker empty its wallet right before the relayer's broadcast.
 */
describe("reverted relays' gas is charged to their taker and integrator, and spends their budgets (audit H-1)", function () {
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
      relayerEnv: budgetEnv,
    });
  });
  afterEach(async () => {
    await stack.close();
    await proxy.close();
    await chain.close();
  });

  const budgetEnv = { RELAYER_TAKER_GAS_BUDGET: String(TAKER_BUDGET), RELAYER_INTEGRATOR_GAS_BUDGET: String(INTEGRATOR_BUDGET) };

  /** The ledger of the stack's integrator, by cause and kind. */
  const ledger = () => stack.relayer!.context.store.unpaidGasTotals({ integratorId: stack.api.integratorId });
  /** A reverted relay's receipt, its gas checked against REVERTED_SWAP_GAS. */
  const minedReceipt = async (relay: RelayJson) => {
    const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash! });
    expect(receipt.gasUsed * 10n > REVERTED_SWAP_GAS * 8n && receipt.gasUsed * 10n < REVERTED_SWAP_GAS * 12n, `a reverted swap used ${receipt.gasUsed} gas; REVERTED_SWAP_GAS is ${REVERTED_SWAP_GAS}`).to.equal(true);
    return receipt;
  };
  /** A refusal's `frees_at`: a day after a charge made during this test. */
  const expectFreesWithinADayOf = (freesAt: unknown, start: number) => {
    expect(typeof freesAt).to.equal("string");
    const at = Date.parse(freesAt as string);
    expect(at).to.be.within(start + 24 * 3_600_000, Date.now() + 24 * 3_600_000);
  };

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

  it("a mined revert on a chain that mines on send is failed/reverted (never simulation_failed) and its receipt's gas is charged; the second spends the taker's budget, the third the integrator's; the operator sees and clears them", async () => {
    const start = Date.now();
    const [alice, bob] = await fundedTakers(f, 2);
    const first = await revertedRelay(alice!);
    expect([first.status, first.reason], JSON.stringify(first)).to.deep.equal(["failed", "reverted"]);
    expect(first.transactions.filter((transaction) => transaction.mined)).to.have.length(1);
    const firstReceipt = await minedReceipt(first);
    expect(firstReceipt.status).to.equal("reverted");
    expect(await ledger()).to.deep.equal([
      { cause: "taker", kind: "reverted_swap", entries: 1, gasUsed: firstReceipt.gasUsed, weiPaid: Number(firstReceipt.gasUsed * firstReceipt.effectiveGasPrice) },
    ]);
    expect(await gaslessQuoteStatus(alice!)).to.deep.equal([200, null]);

    const second = await revertedRelay(alice!);
    expect(second.reason).to.equal("reverted");
    const charged = firstReceipt.gasUsed + (await minedReceipt(second)).gasUsed;
    const blocked = await stack.gaslessQuote(alice!.address, { sell_amount: parseUnits("100", 6) });
    expect([blocked.status, blocked.body.code]).to.deep.equal([403, "gasless_taker_gas_budget_spent"]);
    expect([blocked.body.budget, blocked.body.budget_gas, blocked.body.charged_gas, blocked.body.window_hours]).to.deep.equal(["taker", Number(TAKER_BUDGET), Number(charged), 24]);
    expectFreesWithinADayOf(blocked.body.frees_at, start);
    expect(blocked.body.error).to.match(/permit2_owner/);
    // Only gasless quotes: the taker may still send swaps itself, and other takers still relay.
    expect((await stack.api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("100", 6), taker: alice!.address })).status).to.equal(200);
    expect(await gaslessQuoteStatus(bob!)).to.deep.equal([200, null]);

    expect((await revertedRelay(bob!)).reason).to.equal("reverted");
    const integratorSpent = await stack.gaslessQuote(bob!.address, { sell_amount: parseUnits("100", 6) });
    expect([integratorSpent.status, integratorSpent.body.code, integratorSpent.body.budget]).to.deep.equal([403, "gasless_integrator_gas_budget_spent", "integrator"]);
    expectFreesWithinADayOf(integratorSpent.body.frees_at, start);

    // The operator's view, as a separate process on the relayer's and the API's databases.
    const env = { API_DB_PATH: stack.api.dbPath, RELAYER_DB_PATH: join(stack.directory, "relayer.sqlite"), ...budgetEnv };
    const listed = await runScript("scripts/integrators.ts", ["reverts", "--json"], env);
    expect(listed.status, listed.stderr).to.equal(0);
    const rows = (JSON.parse(listed.stdout) as { charges: { kind: string; subject: string; charges: number; spent: boolean }[] }).charges;
    const slug = `quote-${stack.api.owner.address.slice(2, 10).toLowerCase()}`;
    expect(rows.map((row) => [row.kind, row.subject, row.charges, row.spent])).to.deep.equal([
      ["integrator", slug, 3, true],
      ["taker", alice!.address, 2, true],
      ["taker", bob!.address, 1, false],
    ]);

    const cleared = await runScript("scripts/integrators.ts", ["clear-reverts", slug], env);
    expect([cleared.status, cleared.stdout.trim()]).to.deep.equal([0, `cleared 3 charges of integrator ${slug}`]);
    expect(await gaslessQuoteStatus(bob!)).to.deep.equal([200, null]);
    expect(await gaslessQuoteStatus(alice!)).to.deep.equal([403, "gasless_taker_gas_budget_spent"]);

    // In-process too, with the command's own context.
    const store = await openStore(stack.api.config);
    const admin = await openIntegratorAdministration(stack.api.config);
    const output: string[] = [];
    try {
      const relayer = { open: async () => openSqliteRelayStore(join(stack.directory, "relayer.sqlite")), budgets: { taker: TAKER_BUDGET, integrator: INTEGRATOR_BUDGET } };
      expect(await runIntegratorsCommand(["clear-reverts", alice!.address.toLowerCase()], { store, admin, print: (line) => output.push(line), now: new Date(), defaultActor: "ops", relayer })).to.equal(0);
      expect(output).to.deep.equal([`cleared 2 charges of taker ${alice!.address}`]);
    } finally {
      await admin.close();
      await store.close();
    }
    expect(await gaslessQuoteStatus(alice!)).to.deep.equal([200, null]);
  });

  it("a quote taken before its taker's budget was spent is refused when submitted: 403 gasless_taker_gas_budget_spent from the relayer's own ledger, nothing sent", async () => {
    const [carol] = await fundedTakers(f, 1);
    const early = (await stack.gaslessQuote(carol!.address, { sell_amount: parseUnits("100", 6) })).body;
    const earlySignature = await stack.sign(early, carol!);
    await revertedRelay(carol!);
    await revertedRelay(carol!);
    const signerNonces = async () => Promise.all(relayerAccounts().signers.map((signer) => f.publicClient.getTransactionCount({ address: signer.address })));
    const before = await signerNonces();
    const submitted = await stack.submit({ quote_id: early.quote_id, signature: earlySignature });
    expect([submitted.status, submitted.body.code, submitted.body.budget], JSON.stringify(submitted.body)).to.deep.equal([403, "gasless_taker_gas_budget_spent", "taker"]);
    expect(submitted.body.error).to.match(new RegExp(`made the relayer pay [0-9]+ gas with no fee in the last 24 hours \\(its budget is ${TAKER_BUDGET}\\); gasless quotes are refused for it until 20[0-9-]+T`));
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
