import { expect } from "chai";
import { encodeFunctionData, erc20Abi, getAddress, type Address, type Hex } from "viem";
import {
  ClientConfigError,
  PERMIT2_ADDRESS,
  QuoteCalldataError,
  QuoteFeeError,
  QuoteMismatchError,
  UntrustedRouterError,
  createTradingClient,
  decodeQuoteOrder,
  decodeRouteActions,
  encodeRouteActions,
  encodeSwapNative,
  permit2Abi,
  verifyQuoteOrder,
  type QuoteCall,
  type QuoteJson,
  type QuoteParameters,
  type RouteAction,
  type TradingClient,
  type TradingWallet,
} from "../../sdk";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";
import { copyQuote, withCall, withMessage, type PermitMessageJson } from "../fixtures/quoteTampering";
import { ATTACKER, FEE_BPS, fetchRealQuotes, refusal, type Mode, type RealQuote } from "../fixtures/realQuotes";

describe("verifyQuote looks inside tx.data and the permit message (audit L-4)", function () {
  this.timeout(240_000);
  let devnet: SharedDevnet;
  let client: TradingClient;
  let owner: Address;
  let taker: TradingWallet;
  let quotes: Record<Mode, RealQuote>;

  before(async function () {
    this.timeout(240_000);
    devnet = await sharedDevnet();
    ({ client, owner, taker, quotes } = await fetchRealQuotes(devnet));
  });
  after(() => client?.close());

  describe("real quotes pass unmodified", () => {
    it("decodes every settlement mode the API issues and accepts it: permit, gasless, allowance (ERC20 and native sells, native buys), split routes", async () => {
      const kinds: Record<Mode, QuoteCall["kind"]> = {
        permit: "permit",
        permitSplit: "permit",
        gasless: "gasless",
        allowance: "allowance",
        allowanceSplit: "allowance",
        nativeSell: "native",
        nativeSplit: "native",
        nativeBuy: "permit",
      };
      for (const [mode, { quote, expected }] of Object.entries(quotes) as [Mode, RealQuote][]) {
        expect(verifyQuoteOrder(quote, expected).kind, mode).to.equal(kinds[mode]);
        // Through the client, which remembers the request of each quote it fetched.
        await client.verifyQuote(quote);
      }
      for (const mode of ["permitSplit", "allowanceSplit", "nativeSplit"] as const) expect(quotes[mode].quote.route.legs.length, mode).to.be.within(2, 3);
      expect(quotes.permit.quote.platform_fee).to.include({ bps: FEE_BPS });
    });

    it("a quote the client did not fetch needs the taker: without it verifyQuote refuses to guess", async () => {
      const error = await client.verifyQuote(copyQuote(quotes.permit.quote)).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(ClientConfigError);
      await client.verifyQuote(copyQuote(quotes.permit.quote), { taker: taker.account.address, feeBps: FEE_BPS });
    });
  });

  describe("each refusal names the field", () => {
    const order = (mode: Mode, change: (call: QuoteCall) => void) =>
      withCall(quotes[mode].quote, (call) => {
        const copy = structuredClone(call);
        change(copy);
        return copy;
      });
    const expectRefused = (mode: Mode, tampered: QuoteJson, type: typeof QuoteMismatchError | typeof QuoteCalldataError, field: string) => {
      const error = refusal(() => verifyQuoteOrder(tampered, quotes[mode].expected));
      expect(error, error.message).to.be.instanceOf(type);
      expect(error.field, error.message).to.equal(field);
      expect(error.message).to.include(field);
      return error;
    };

    it("sell token, buy token, sell amount, recipient and a minimum below min_buy_amount in the order", () => {
      expectRefused("permit", order("permit", (call) => void (call.order.sellToken = devnet.token("DAI"))), QuoteMismatchError, "tx.data.order.sellToken");
      expectRefused("allowance", order("allowance", (call) => void (call.order.buyToken = devnet.token("WETH"))), QuoteMismatchError, "tx.data.order.buyToken");
      expectRefused("nativeSell", order("nativeSell", (call) => void (call.order.sellAmount -= 1n)), QuoteMismatchError, "tx.data.order.sellAmount");
      const recipient = expectRefused("allowanceSplit", order("allowanceSplit", (call) => void (call.order.recipient = ATTACKER)), QuoteMismatchError, "tx.data.order.recipient") as QuoteMismatchError;
      expect(recipient).to.include({ expected: taker.account.address, actual: getAddress(ATTACKER), source: "request recipient" });
      expect(recipient.details).to.include("Do not sign or send");
      const below = expectRefused("gasless", order("gasless", (call) => void (call.order.minBuyAmount /= 2n)), QuoteMismatchError, "tx.data.order.minBuyAmount") as QuoteMismatchError;
      expect(below.message).to.include("is below").and.include(quotes.gasless.quote.min_buy_amount);
      // Asked with 10 bps of slippage, the API's minimum (its default of 100 bps) is too low.
      expect(refusal(() => verifyQuoteOrder(quotes.permit.quote, { ...quotes.permit.expected, slippageBps: 10 })).field).to.equal("min_buy_amount");
    });

    it("a recipient rewritten in tx.data and in the signed witness alike (a consistent attacker) is still the request's recipient check", () => {
      const tampered = withMessage(order("permit", (call) => void (call.order.recipient = ATTACKER)), (message) => void (message.witness.recipient = ATTACKER));
      expectRefused("permit", tampered, QuoteMismatchError, "tx.data.order.recipient");
      const buy = withMessage(order("nativeBuy", (call) => void (call.order.recipient = ATTACKER)), (message) => void (message.witness.recipient = ATTACKER));
      expectRefused("nativeBuy", buy, QuoteMismatchError, "tx.data.order.recipient");
    });

    it("an actionsHash that is not keccak256 of the actions", () => {
      const tampered = withMessage(quotes.permitSplit.quote, (message) => void (message.witness.actionsHash = `0x${"ab".repeat(32)}`));
      const error = expectRefused("permitSplit", tampered, QuoteMismatchError, "permit2.message.witness.actionsHash") as QuoteMismatchError;
      expect(error.source).to.equal("keccak256(tx.data.order.actions)");
    });

    it("a fee to anyone but the integrator's fee recipient, or above fee_bps, in the actions or in platform_fee too", () => {
      const feeChange = (mode: Mode, change: (fee: Extract<RouteAction, { type: "fee" }>) => void) =>
        order(mode, (call) => {
          const actions = decodeRouteActions(call.order.actions);
          change(actions.find((action): action is Extract<RouteAction, { type: "fee" }> => action.type === "fee")!);
          call.order.actions = encodeRouteActions(actions);
        });
      expectRefused("allowance", feeChange("allowance", (fee) => void (fee.recipient = ATTACKER)), QuoteFeeError, "tx.data.order.actions.fee.recipient");
      const higher = expectRefused("nativeSell", feeChange("nativeSell", (fee) => void (fee.bps = 500)), QuoteFeeError, "tx.data.order.actions.fee.bps");
      expect(higher.message).to.include("is above");
      // The JSON rewritten to match: the client's own configuration and request still refuse it.
      const both = feeChange("permit", (fee) => void (fee.recipient = ATTACKER));
      both.platform_fee.recipient = ATTACKER;
      expectRefused("permit", both, QuoteFeeError, "platform_fee.recipient");
      const capped = feeChange("permitSplit", (fee) => void (fee.bps = 500));
      capped.platform_fee.bps = 500;
      expectRefused("permitSplit", capped, QuoteFeeError, "platform_fee.bps");
      // A fee present although the request asked for none (fee_bps 0).
      const { quote } = quotes.nativeBuy;
      const added = withCall(quote, (call) => ({ ...call, order: { ...call.order, actions: encodeRouteActions([...decodeRouteActions(call.order.actions).filter((a) => a.type !== "fee"), { type: "fee", bps: 10, recipient: ATTACKER }]) } }));
      expect(refusal(() => verifyQuoteOrder(added, { ...quotes.nativeBuy.expected, feeBps: 0 }))).to.be.instanceOf(QuoteFeeError);
    });

    it("split routes: a leg's share or pair that differs from route.legs", () => {
      const reshare = order("permitSplit", (call) => {
        const actions = decodeRouteActions(call.order.actions);
        const split = actions.find((action): action is Extract<RouteAction, { type: "split" }> => action.type === "split")!;
        split.legs[0]!.shareBps += 1;
        split.legs[1]!.shareBps -= 1;
        call.order.actions = encodeRouteActions(actions);
      });
      const error = expectRefused("permitSplit", reshare, QuoteMismatchError, "tx.data.order.actions") as QuoteMismatchError;
      expect(error.source).to.include("route");
      const repair = order("nativeSplit", (call) => {
        const actions = decodeRouteActions(call.order.actions);
        const split = actions.find((action): action is Extract<RouteAction, { type: "split" }> => action.type === "split")!;
        const firstHop = split.legs[0]!.hops[0]!;
        if (firstHop.type !== "swapV2") throw new Error("the devnet split is over V2 pairs");
        firstHop.pair = ATTACKER;
        call.order.actions = encodeRouteActions(actions);
      });
      expectRefused("nativeSplit", repair, QuoteMismatchError, "tx.data.order.actions");
    });

    it("gasless: the relayer fee and its recipient in tx.data and in the typed data must be the quote's relayer_fee", () => {
      const { quote } = quotes.gasless;
      expectRefused("gasless", order("gasless", (call) => void (call.kind === "gasless" && (call.relayerFee += 1n))), QuoteMismatchError, "tx.data.relayerFee");
      expectRefused("gasless", order("gasless", (call) => void (call.kind === "gasless" && (call.relayerFeeRecipient = ATTACKER))), QuoteMismatchError, "tx.data.relayerFeeRecipient");
      expectRefused("gasless", order("gasless", (call) => void (call.kind === "gasless" && (call.taker = ATTACKER))), QuoteMismatchError, "tx.data.taker");
      expectRefused("gasless", withMessage(quote, (message) => void (message.witness.relayerFee = "1")), QuoteMismatchError, "permit2.message.witness.relayerFee");
      expectRefused("gasless", withMessage(quote, (message) => void (message.witness.relayerFeeRecipient = ATTACKER)), QuoteMismatchError, "permit2.message.witness.relayerFeeRecipient");
      // The JSON's relayer_fee raised alone: the calldata no longer pays what the quote says.
      const json = copyQuote(quote);
      json.relayer_fee!.amount = (BigInt(json.relayer_fee!.amount) * 2n + 1n).toString();
      expectRefused("gasless", json, QuoteMismatchError, "tx.data.relayerFee");
      // The permit must cover exactly sell amount + relayer fee.
      expectRefused("gasless", withMessage(quote, (message) => void (message.permitted.amount = quote.sell_amount)), QuoteMismatchError, "permit2.message.permitted.amount");
    });

    it("the permit2 message: permitted token and amount, spender, nonce, deadline and witness fields agree with tx.data", () => {
      const { quote } = quotes.permit;
      const cases: [string, (message: PermitMessageJson) => void][] = [
        ["permit2.message.permitted.token", (m) => void (m.permitted.token = devnet.token("DAI"))],
        ["permit2.message.permitted.amount", (m) => void (m.permitted.amount = (BigInt(m.permitted.amount) * 10n).toString())],
        ["permit2.message.spender", (m) => void (m.spender = ATTACKER)],
        ["permit2.message.nonce", (m) => void (m.nonce = (BigInt(m.nonce) + 1n).toString())],
        ["permit2.message.deadline", (m) => void (m.deadline = (BigInt(m.deadline) + 3600n).toString())],
        ["permit2.message.witness.buyToken", (m) => void (m.witness.buyToken = devnet.token("DAI"))],
        ["permit2.message.witness.minBuyAmount", (m) => void (m.witness.minBuyAmount = "0")],
        ["permit2.message.witness.deadline", (m) => void (m.witness.deadline = "99999999999")],
        ["permit2.message.witness.quoteId", (m) => void (m.witness.quoteId = `0x${"11".repeat(32)}`)],
        ["permit2.message.witness", (m) => void (m.witness.extra = "1")],
      ];
      for (const [field, change] of cases) expectRefused("permit", withMessage(quote, change), QuoteMismatchError, field);
      const wrongChain = copyQuote(quote);
      wrongChain.permit2!.domain.chainId = 1;
      expectRefused("permit", wrongChain, QuoteMismatchError, "permit2.domain.chainId");
      const wrongTypes = copyQuote(quote);
      wrongTypes.permit2!.types.SwapWitness = wrongTypes.permit2!.types.SwapWitness!.filter((field) => field.name !== "recipient");
      expectRefused("permit", wrongTypes, QuoteMismatchError, "permit2.types");
    });

    it("the permit's Permit2 is the chain's (expected.permit2, from the chain file), the canonical address by default", async () => {
      const { quote, expected } = quotes.permit;
      expect(verifyQuoteOrder(quote, expected).kind).to.equal("permit");
      expect(verifyQuoteOrder(quote, { ...expected, permit2: devnet.manifest.contracts.permit2 }).kind).to.equal("permit");
      // A client configured for a chain whose Permit2 lives elsewhere refuses a permit naming the canonical one.
      const error = refusal(() => verifyQuoteOrder(quote, { ...expected, permit2: ATTACKER }));
      expect(error, error.message).to.be.instanceOf(QuoteMismatchError);
      expect(error.field).to.equal("permit2.domain.verifyingContract");
      expect(error.message).to.include("contracts.permit2");
      expect(PERMIT2_ADDRESS).to.equal(devnet.manifest.contracts.permit2);
      // Through a client configured with contracts.permit2: the target check refuses first, naming the role.
      const configured = createTradingClient({ apiUrl: devnet.apiUrl, publicClient: devnet.publicClient, contracts: { routerRegistry: devnet.manifest.contracts.routerRegistry, permit2: ATTACKER } });
      const targetError = await configured.verifyQuote(copyQuote(quote), { taker: taker.account.address, feeBps: FEE_BPS }).catch((caught: unknown) => caught);
      configured.close();
      expect(targetError).to.be.instanceOf(UntrustedRouterError);
      expect((targetError as UntrustedRouterError).role).to.equal("permit2.domain.verifyingContract");
    });

    it("the call itself: another function, a non-canonical encoding, a stray permit2 or signature slot, a wrong value", () => {
      const { quote } = quotes.allowance;
      const native = copyQuote(quote);
      native.tx.data = encodeSwapNative(decodeQuoteOrder(quote.tx.data).order);
      expectRefused("allowance", native, QuoteMismatchError, "tx.data");
      const padded = copyQuote(quote);
      padded.tx.data = `${quote.tx.data}00` as Hex;
      expectRefused("allowance", padded, QuoteCalldataError, "tx.data");
      const transfer = copyQuote(quote);
      transfer.tx.data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [ATTACKER, 1n] });
      expect(refusal(() => verifyQuoteOrder(transfer, quotes.allowance.expected)).message).to.include("its selector is 0xa9059cbb");
      const opcode = order("allowance", (call) => void (call.order.actions = `${call.order.actions}ff`));
      expect(refusal(() => verifyQuoteOrder(opcode, quotes.allowance.expected)).message).to.include("tx.data.order.actions do not decode").and.include("unknown action opcode 0xff");
      // A permit2 object on an allowance quote would be signed and its signature published in tx.data.
      const harvest = copyQuote(quote);
      harvest.permit2 = structuredClone(quotes.permit.quote.permit2);
      expectRefused("allowance", harvest, QuoteMismatchError, "permit2");
      const valued = copyQuote(quotes.nativeSell.quote);
      valued.tx.value = (BigInt(valued.tx.value) + 1n).toString();
      expectRefused("nativeSell", valued, QuoteMismatchError, "tx.value");
      const slot = copyQuote(quotes.permit.quote);
      slot.tx.signature_offset = slot.tx.signature_offset! - 32;
      expectRefused("permit", slot, QuoteMismatchError, "tx.signature_offset");
    });
  });

  describe("executeQuote and swapGasless refuse a tampered quote before signing or sending", () => {
    /** A compromised API or proxy: the /quote response's order pays the attacker (witness rewritten to match). */
    function tamperingClient(apiKey: string, rewrite: (quote: QuoteJson) => QuoteJson) {
      const submits: string[] = [];
      const tampering = createTradingClient({
        apiUrl: devnet.apiUrl,
        apiKey,
        publicClient: devnet.publicClient,
        contracts: { routerRegistry: devnet.manifest.contracts.routerRegistry, allowanceHolder: devnet.manifest.contracts.allowanceHolder },
        fetch: async (url, init) => {
          if (url.includes("/gasless/submit")) submits.push(url);
          const response = await globalThis.fetch(url, init);
          if (!url.includes("/quote?") || response.status !== 200) return response;
          const body = (await response.json()) as QuoteJson;
          return new Response(JSON.stringify(rewrite(body)), { status: 200, headers: { "content-type": "application/json" } });
        },
      });
      return { tampering, submits };
    }
    const payAttacker = (quote: QuoteJson): QuoteJson => {
      const tampered = withCall(quote, (call) => ({ ...call, order: { ...call.order, recipient: ATTACKER } }));
      if (tampered.permit2 !== undefined) tampered.permit2.message.witness.recipient = ATTACKER;
      return tampered;
    };
    /** A real wallet whose signatures are counted. */
    function countingWallet(key: Hex): { wallet: TradingWallet; signatures: () => number } {
      const real = devnet.wallet(key);
      let count = 0;
      const wallet = { ...real, signTypedData: ((parameters: Parameters<TradingWallet["signTypedData"]>[0]) => (count++, real.signTypedData(parameters))) as TradingWallet["signTypedData"] };
      return { wallet, signatures: () => count };
    }

    it("permit, allowance and native quotes paying the attacker: no signature, no transaction (taker nonce, balances and Permit2 nonces unchanged)", async () => {
      const { apiKey } = await devnet.onboardedClient();
      const { tampering } = tamperingClient(apiKey, payAttacker);
      // An approval sent by executeQuote would show in the nonce too.
      const { wallet, signatures } = countingWallet(DEV_KEYS[3]);
      const address = wallet.account.address;
      const [usdc, weth] = [devnet.token("USDC"), devnet.token("WETH")];
      const requests: QuoteParameters[] = [
        { sellToken: usdc, buyToken: weth, sellAmount: 20_000_000n, taker: address },
        { sellToken: usdc, buyToken: weth, sellAmount: 20_000_000n, taker: address, settlement: "allowance" },
        { sellToken: "ETH", buyToken: usdc, sellAmount: 10n ** 16n, taker: address },
      ];
      for (const request of requests) {
        const quote = await tampering.getQuote(request);
        const before = await Promise.all([
          devnet.publicClient.getTransactionCount({ address, blockTag: "pending" }),
          devnet.publicClient.getBalance({ address }),
          devnet.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] }),
          devnet.publicClient.readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "nonceBitmap", args: [address, 0n] }),
        ]);
        const error = await tampering.executeQuote(quote, wallet).catch((caught: unknown) => caught);
        expect(error, `${request.settlement ?? request.sellToken}`).to.be.instanceOf(QuoteMismatchError);
        expect(error).to.include({ field: "tx.data.order.recipient", actual: getAddress(ATTACKER) });
        const after = await Promise.all([
          devnet.publicClient.getTransactionCount({ address, blockTag: "pending" }),
          devnet.publicClient.getBalance({ address }),
          devnet.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] }),
          devnet.publicClient.readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "nonceBitmap", args: [address, 0n] }),
        ]);
        expect(after).to.deep.equal(before);
      }
      expect(signatures()).to.equal(0);
      // The same client, untampered responses: the swap goes through (the check is not what failed).
      const honest = createTradingClient({ apiUrl: devnet.apiUrl, apiKey, publicClient: devnet.publicClient, contracts: { routerRegistry: devnet.manifest.contracts.routerRegistry } });
      const quote = await honest.getQuote({ sellToken: "ETH", buyToken: usdc, sellAmount: 10n ** 16n, taker: address });
      expect((await honest.executeQuote(quote, wallet)).receipt.status).to.equal("success");
      tampering.close();
      honest.close();
    });

    it("a gasless quote whose relayer fee was raised: not signed, not submitted", async () => {
      const { apiKey } = await devnet.onboardedClient();
      const raiseFee = (quote: QuoteJson): QuoteJson => {
        const tampered = withCall(quote, (call) => (call.kind === "gasless" ? { ...call, relayerFee: call.relayerFee + 10n ** 6n, relayerFeeRecipient: ATTACKER } : call));
        tampered.permit2!.message.witness.relayerFee = (BigInt(tampered.permit2!.message.witness.relayerFee!) + 10n ** 6n).toString();
        tampered.permit2!.message.witness.relayerFeeRecipient = ATTACKER;
        tampered.permit2!.message.permitted.amount = (BigInt(tampered.permit2!.message.permitted.amount) + 10n ** 6n).toString();
        return tampered;
      };
      const { tampering, submits } = tamperingClient(apiKey, raiseFee);
      const { wallet, signatures } = countingWallet(DEV_KEYS[3]);
      const quote = await tampering.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 50_000_000n, taker: wallet.account.address, gasless: true });
      const nonce = await devnet.publicClient.getTransactionCount({ address: wallet.account.address, blockTag: "pending" });
      const error = (await tampering.swapGasless(quote, wallet, { intervalMs: 100, timeoutMs: 5_000 }).catch((caught: unknown) => caught)) as QuoteMismatchError;
      expect(error).to.be.instanceOf(QuoteMismatchError);
      expect(error.field).to.equal("tx.data.relayerFee");
      expect(error.source).to.equal("relayer_fee.amount");
      expect(signatures()).to.equal(0);
      expect(submits).to.deep.equal([]);
      expect(await devnet.publicClient.getTransactionCount({ address: wallet.account.address, blockTag: "pending" })).to.equal(nonce);
      tampering.close();
    });

    it("an unmodified split permit quote with a fee still executes, paying the integrator's fee recipient", async () => {
      const { wallet } = countingWallet(DEV_KEYS[8]);
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 300_000_000_000n, taker: wallet.account.address, feeBps: FEE_BPS });
      expect(quote.route.legs.length).to.be.within(2, 3);
      const feeBefore = await devnet.publicClient.readContract({ address: devnet.token("WETH"), abi: erc20Abi, functionName: "balanceOf", args: [owner] });
      expect((await client.executeQuote(quote, wallet)).receipt.status).to.equal("success");
      const feeAfter = await devnet.publicClient.readContract({ address: devnet.token("WETH"), abi: erc20Abi, functionName: "balanceOf", args: [owner] });
      expect(feeAfter - feeBefore >= BigInt(quote.platform_fee.amount)).to.equal(true);
    });
  });
});
