import { expect } from "chai";
import fc from "fast-check";
import { getAddress, type Address, type Hex } from "viem";
import { decodeRouteActions, encodeRouteActions, verifyQuoteOrder, type QuoteCall, type QuoteJson, type RouteAction, type TradingClient } from "../../sdk";
import { sharedDevnet } from "../fixtures/sharedDevnet";
import { copyQuote, withCall, withMessage, type PermitMessageJson } from "../fixtures/quoteTampering";
import { ATTACKER, MODES, fetchRealQuotes, namedFields, refusal, type Mode, type RealQuote } from "../fixtures/realQuotes";

describe("verifyQuoteOrder property (audit L-4): any single-field mutation of a real quote's order or permit message is refused naming that field", function () {
  this.timeout(240_000);
  let client: TradingClient;
  let quotes: Record<Mode, RealQuote>;

  before(async function () {
    this.timeout(240_000);
    ({ client, quotes } = await fetchRealQuotes(await sharedDevnet()));
  });
  after(() => client?.close());

  type Mutation = { path: string; modes: readonly Mode[]; apply: (quote: QuoteJson, seed: Hex) => QuoteJson | undefined };
  const PERMIT_MODES: readonly Mode[] = ["permit", "permitSplit", "gasless", "nativeBuy"];
  const ALL_MODES = MODES;
  const addressFrom = (seed: Hex): Address => getAddress(`0x${seed.slice(2, 42)}`);
  const amountFrom = (seed: Hex, old: bigint): bigint => {
    const raw = BigInt(seed) % 2n ** 128n;
    return raw === old ? old + 1n : raw;
  };
  const callMutation = (path: string, modes: readonly Mode[], change: (call: QuoteCall, seed: Hex) => void): Mutation => ({
    path,
    modes,
    apply: (quote, seed) =>
      withCall(quote, (call) => {
        const copy = structuredClone(call);
        change(copy, seed);
        return copy;
      }),
  });
  const messageMutation = (path: string, change: (message: PermitMessageJson, seed: Hex) => void, modes = PERMIT_MODES): Mutation => ({
    path,
    modes,
    apply: (quote, seed) => withMessage(quote, (message) => change(message, seed)),
  });
  const differentAddress = (old: string, seed: Hex) => {
    const next = addressFrom(seed);
    return next.toLowerCase() === old.toLowerCase() ? ATTACKER : next;
  };
  /** A change to the actions: a pair, a token, a pool fee (bound by the witness only), the fee's bps or recipient, or a dropped action. */
  const actionsMutation = (poolFee: boolean): ((call: QuoteCall, seed: Hex) => void) => (call, seed) => {
    const actions = decodeRouteActions(call.order.actions);
    const hops = actions.flatMap((action) => (action.type === "swapV2" ? [action] : action.type === "split" ? action.legs.flatMap((leg) => leg.hops.flatMap((hop) => (hop.type === "swapV2" ? [hop] : []))) : []));
    const fee = actions.find((action): action is Extract<RouteAction, { type: "fee" }> => action.type === "fee");
    const pick = Number(BigInt(seed) % 997n);
    const choice = pick % (poolFee ? 5 : 4);
    const hop = hops[pick % Math.max(hops.length, 1)];
    if (choice === 0 && hop !== undefined) hop.pair = differentAddress(hop.pair, seed);
    else if (choice === 1 && fee !== undefined) fee.recipient = differentAddress(fee.recipient, seed);
    else if (choice === 2 && fee !== undefined) fee.bps = (fee.bps + 1 + (pick % 9000)) % 10_001;
    else if (choice === 4 && hop !== undefined) hop.feeBps = (hop.feeBps + 1 + (pick % 100)) % 10_000;
    else actions.splice(pick % actions.length, 1);
    call.order.actions = encodeRouteActions(actions);
  };
  const mutations: Mutation[] = [
    callMutation("tx.data.order.sellToken", ALL_MODES, (call, seed) => void (call.order.sellToken = differentAddress(call.order.sellToken, seed))),
    callMutation("tx.data.order.sellAmount", ALL_MODES, (call, seed) => void (call.order.sellAmount = amountFrom(seed, call.order.sellAmount))),
    callMutation("tx.data.order.buyToken", ALL_MODES, (call, seed) => void (call.order.buyToken = differentAddress(call.order.buyToken, seed))),
    callMutation("tx.data.order.minBuyAmount", ALL_MODES, (call, seed) => void (call.order.minBuyAmount = amountFrom(seed, call.order.minBuyAmount))),
    callMutation("tx.data.order.recipient", ALL_MODES, (call, seed) => void (call.order.recipient = differentAddress(call.order.recipient, seed))),
    callMutation("tx.data.order.deadline", ALL_MODES, (call, seed) => void (call.order.deadline = amountFrom(seed, call.order.deadline))),
    // The bytes32 quote id has no counterpart in the JSON (the UUID is not derived from it): only the witness binds it.
    callMutation("tx.data.order.quoteId", PERMIT_MODES, (call, seed) => void (call.order.quoteId = seed.toLowerCase() === call.order.quoteId ? `0x${"00".repeat(31)}01` : seed)),
    callMutation("tx.data.order.actions", PERMIT_MODES, actionsMutation(true)),
    // Without a witness, the pool fee of a hop is checked on chain only (SwapPoolFeeMismatch): the JSON does not state it.
    callMutation("tx.data.order.actions", ["allowance", "allowanceSplit", "nativeSell", "nativeSplit"], actionsMutation(false)),
    callMutation("tx.data.nonce", PERMIT_MODES, (call, seed) => void ((call.kind === "permit" || call.kind === "gasless") && (call.nonce = amountFrom(seed, call.nonce)))),
    callMutation("tx.data.taker", ["gasless"], (call, seed) => void (call.kind === "gasless" && (call.taker = differentAddress(call.taker, seed)))),
    callMutation("tx.data.relayerFee", ["gasless"], (call, seed) => void (call.kind === "gasless" && (call.relayerFee = amountFrom(seed, call.relayerFee)))),
    callMutation("tx.data.relayerFeeRecipient", ["gasless"], (call, seed) => void (call.kind === "gasless" && (call.relayerFeeRecipient = differentAddress(call.relayerFeeRecipient, seed)))),
    messageMutation("permit2.message.permitted.token", (m, seed) => void (m.permitted.token = differentAddress(m.permitted.token, seed))),
    messageMutation("permit2.message.permitted.amount", (m, seed) => void (m.permitted.amount = amountFrom(seed, BigInt(m.permitted.amount)).toString())),
    messageMutation("permit2.message.spender", (m, seed) => void (m.spender = differentAddress(m.spender, seed))),
    messageMutation("permit2.message.nonce", (m, seed) => void (m.nonce = amountFrom(seed, BigInt(m.nonce)).toString())),
    messageMutation("permit2.message.deadline", (m, seed) => void (m.deadline = amountFrom(seed, BigInt(m.deadline)).toString())),
    ...(["recipient", "buyToken", "relayerFeeRecipient"] as const).map((name) =>
      messageMutation(`permit2.message.witness.${name}`, (m, seed) => void (m.witness[name] = differentAddress(m.witness[name]!, seed)), name === "relayerFeeRecipient" ? ["gasless"] : PERMIT_MODES),
    ),
    ...(["minBuyAmount", "deadline", "relayerFee"] as const).map((name) =>
      messageMutation(`permit2.message.witness.${name}`, (m, seed) => void (m.witness[name] = amountFrom(seed, BigInt(m.witness[name]!)).toString()), name === "relayerFee" ? ["gasless"] : PERMIT_MODES),
    ),
    ...(["quoteId", "actionsHash"] as const).map((name) =>
      messageMutation(`permit2.message.witness.${name}`, (m, seed) => void (m.witness[name] = m.witness[name]!.toLowerCase() === seed ? `0x${"00".repeat(31)}02` : seed)),
    ),
  ];
  const cases = mutations.flatMap((mutation) => mutation.modes.map((mode) => ({ mode, mutation })));
  const seed = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}` as Hex);

  it(`covers ${mutations.length} fields over 8 real quotes (${cases.length} field-mode pairs), each at least once`, () => {
    for (const { mode, mutation } of cases) {
      const tampered = mutation.apply(quotes[mode].quote, `0x${"5a".repeat(32)}`)!;
      const error = refusal(() => verifyQuoteOrder(tampered, quotes[mode].expected));
      expect(namedFields(error).some((name) => name.includes(mutation.path)), `${mode} ${mutation.path}: ${error.message}`).to.equal(true);
    }
  });

  it("holds for random values (fast-check)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...cases), seed, ({ mode, mutation }, value) => {
        const tampered = mutation.apply(quotes[mode].quote, value)!;
        const error = refusal(() => verifyQuoteOrder(tampered, quotes[mode].expected));
        return namedFields(error).some((name) => name.includes(mutation.path));
      }),
      { numRuns: 600 },
    );
  });

  it("and the unmodified quotes pass (fast-check over modes and copies)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_MODES), (mode) => {
        verifyQuoteOrder(copyQuote(quotes[mode].quote), quotes[mode].expected);
        return true;
      }),
      { numRuns: 40 },
    );
  });
});
