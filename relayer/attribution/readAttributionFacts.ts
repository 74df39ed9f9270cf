import { encodeFunctionData, erc20Abi, hexToBigInt, type Address, type Hex, type PublicClient } from "viem";
import { isNoAnswer } from "../../sdk/rpc/noAnswer";
import { decodeGaslessCall, decodeRouteActions, routeHops, routeOutput, routePairs, type GaslessCall, type PairReserves, type RouteAction, type RouteHop, type V3PoolState, type V4PoolState } from "../../sdk";
import { isPermit2NonceUsed } from "../intake/orderState";
import type { RelayRecord } from "../store/relayStore";
import type { AttributionFacts, RetryFacts } from "./attributionFacts";
import { pairStatesAt, pairStatesMet, syncsBefore, type BlockPosition } from "./pairStates";
import { propAmmLogsInBlock, propAmmOutAt, propAmmQuoteBlocks, readRouteVenues, v3HopKey, v3PoolStatesAt, v3PoolStatesMet, v4HopId, v4PoolStatesAt, v4PoolStatesMet, type RouteVenues, type V4Contracts } from "./routeVenues";

import { AttributionReadError, readOrDefer, readOrRefused } from "./readFailure";
import { routerGateOpen } from "./routerGate";
import { takerPullRefused } from "./takerPull";

type Relay = Pick<RelayRecord, "data" | "router" | "taker" | "permit2Nonce" | "acceptedBlock" | "transactions">;

/**
 * An order's route as its router reaches it, for any order whose actions decode: its hops and pairs, and
 * whether it is an exact-output order (whose V4 hops need a router that runs them backwards).
 */
type RouteShape = { actions: RouteAction[]; sellToken: Address; hops: RouteHop[]; pairs: Address[]; exactOutput: boolean };

/**
 * An order's route as repricing sees it: what goes in and the least that must come out. An
 * exact-input order: its sell amount and minimum. An exact-output order without a SPLIT: its maximum
 * input run forwards must yield its output (the same test as the router's backward pass, to a unit of
 * rounding); one with a SPLIT (shares of the output, not the input) is not repriced.
 */
type PricedRoute = RouteShape & { amountIn: bigint; minimum: bigint };

function routeShape(call: GaslessCall): RouteShape | undefined {
  try {
    const actions = decodeRouteActions(call.order.params.actions);
    const sellToken = call.order.params.sellToken;
    return { actions, sellToken, hops: routeHops(actions, sellToken), pairs: routePairs(actions), exactOutput: call.kind === "exactOutput" };
  } catch {
    return undefined;
  }
}

/** `call`'s route as repricing sees it; `shape` is its routeShape, when the caller has it already. */
function pricedRoute(call: GaslessCall | undefined, shape: RouteShape | undefined = call === undefined ? undefined : routeShape(call)): PricedRoute | undefined {
  if (call === undefined || shape === undefined) return undefined;
  if (call.kind === "exactOutput") {
    if (shape.actions.some((action) => action.type === "split")) return undefined;
    return { ...shape, amountIn: call.order.params.maxSellAmount, minimum: call.order.params.buyAmount };
  }
  return { ...shape, amountIn: call.order.params.sellAmount, minimum: call.order.params.minBuyAmount };
}

/** The V2 pairs an order's route trades on, priceable or not (none when its actions do not decode). */
function pairsOf(call: GaslessCall | undefined): Address[] {
  if (call === undefined) return [];
  try {
    return routePairs(decodeRouteActions(call.order.params.actions));
  } catch {
    return [];
  }
}

/** Whether an order's route actions decode. */
function actionsDecode(call: GaslessCall): boolean {
  try {
    decodeRouteActions(call.order.params.actions);
    return true;
  } catch {
    return false;
  }
}

/** At least this share (in percent) of the gas an order was given, used: its code burnt it. */
const CAP_BURNT_PERCENT = 90n;

/**
 * The contracts attribution reads besides the relay's router: Permit2, and Uniswap V4's PoolManager and
 * StateView from the manifest (the relayer's context carries both; absent on a chain without V4).
 */
export type AttributionContracts = Readonly<{ permit2: Address; uniswapV4?: V4Contracts | undefined }>;

/** The route's venues at one point of the chain: V2 reserves, V3 and V4 pool states (V4 by pool id), and the blocks whose end its propAMMs quote at (the lowest quote counts). */
type StatesAt = Readonly<{ pairs: ReadonlyMap<string, PairReserves>; pools: ReadonlyMap<string, V3PoolState>; v4Pools: ReadonlyMap<string, V4PoolState>; propAmmBlocks: readonly bigint[] }>;

/** The route's output at `states`; undefined when a hop cannot be priced there (a V3 or V4 swap past the ticks read or not filled, a V4 pool not read, a propAMM that will not quote). */
function outputAt(client: PublicClient, route: PricedRoute, venues: RouteVenues, states: StatesAt): Promise<bigint | undefined> {
  return routeOutput(route.actions, route.sellToken, route.amountIn, {
    v2Pair: (pair) => states.pairs.get(pair.toLowerCase()),
    v3Pool: (hop, tokenIn) => {
      const pool = venues.v3Pools.get(v3HopKey(hop, tokenIn));
      return pool === undefined ? undefined : states.pools.get(pool);
    },
    v4Pool: (hop, tokenIn) => states.v4Pools.get(v4HopId(hop, tokenIn)),
    propAmmOut: (hop, tokenIn, amountIn) => propAmmOutAt(client, venues, hop, tokenIn, amountIn, states.propAmmBlocks),
  });
}

/** The route's venues and their states at the end of `blockNumber`. */
async function routeStatesAt(client: PublicClient, router: Address, route: PricedRoute, blockNumber: bigint, v4: V4Contracts | undefined): Promise<{ venues: RouteVenues; states: StatesAt }> {
  const venues = await readRouteVenues(client, router, route.hops, blockNumber, route.exactOutput, v4);
  const [pairs, pools, v4Pools] = await Promise.all([pairStatesAt(client, route.pairs, blockNumber), v3PoolStatesAt(client, venues, blockNumber), v4PoolStatesAt(client, venues, blockNumber)]);
  return { venues, states: { pairs, pools, v4Pools, propAmmBlocks: [blockNumber] } };
}

/**
 * Whether every V3, V4 and propAMM hop of the route names a pool or pair the router reaches (else the
 * route is refused and not priced). V4 hops the relayer cannot read (`v4Unread`) count as reached: no
 * fact says otherwise; they are simply not priced.
 */
function venuesComplete(route: Pick<RouteShape, "hops">, venues: RouteVenues): boolean {
  return route.hops.every(({ hop, tokenIn }) => {
    switch (hop.type) {
      case "swapV3":
        return venues.v3Pools.has(v3HopKey(hop, tokenIn));
      case "swapV4":
        return venues.v4Unread || venues.v4Pools.has(v4HopId(hop, tokenIn));
      case "swapPropAmm":
        return venues.propAmms.has(hop.pair.toLowerCase());
      default:
        return true;
    }
  });
}

/** Gas for each read of the sell token's balance or allowance: its code is not ours. */
const TOKEN_READ_GAS = 100_000n;

function decodeOrUndefined(data: Relay["data"]): GaslessCall | undefined {
  try {
    return decodeGaslessCall(data);
  } catch {
    return undefined;
  }
}

/** What the order pulls from the taker's sell-token balance through Permit2, when known. */
function pulled(call: GaslessCall): bigint {
  return call.kind === "exactOutput" ? call.order.relayerFee : call.order.params.sellAmount + call.order.relayerFee;
}

/**
 * Reads the facts `decideCause` needs about `relay`'s order that failed at `position` (a reverted
 * swap's transaction, or a batch member's skip log): the gate at the mined block and its parent, the
 * route repriced at the parent and at the state the order met, the taker's code when accepted and
 * when mined, its Permit2 nonce, and its balance and allowance; `gas`, for a relay mined alone, is
 * its receipt's gas and its transaction's limit (a batch member's own gas is not known).
 */
export function readAttributionFacts(client: PublicClient, contracts: AttributionContracts, relay: Relay, position: BlockPosition, gas?: Readonly<{ used: bigint; limit: bigint }>): Promise<AttributionFacts> {
  // Any read that fails (the node, not the code it ran) defers the whole attribution: no cause is
  // decided on part of the facts.
  return readOrDefer(readFacts(client, contracts, relay, position, gas), `the chain's state at block ${position.blockNumber}`);
}

/** The code-when-accepted read the node could not answer (old state it does not keep). */
const UNKNOWN: unique symbol = Symbol("unknown");

async function readFacts(client: PublicClient, { permit2, uniswapV4 }: AttributionContracts, relay: Relay, position: BlockPosition, gas?: Readonly<{ used: bigint; limit: bigint }>): Promise<AttributionFacts> {
  // The hand-off decoded the calldata and its route actions; should it not decode now, the facts that need it are left out
  // (no repricing, funds not short) rather than the outcome stalled.
  const call = decodeOrUndefined(relay.data);
  const shape = call === undefined ? undefined : routeShape(call);
  const route = pricedRoute(call, shape);
  const parent = position.blockNumber - 1n;
  const balanceAndAllowance = async (blockNumber: bigint) => {
    if (call === undefined) return false;
    const sellToken = call.order.params.sellToken;
    const need = pulled(call);
    // The token's own code runs: bounded gas, and a token whose code reverts or burns the gas has
    // refused (the taker's token). A read the node fails is no fact: it defers the attribution, never
    // reads as an empty balance that would put the failure on the taker.
    const read = (data: Hex): Promise<bigint> =>
      readOrRefused(
        client.call({ to: sellToken, data, blockNumber, gas: TOKEN_READ_GAS }).then(({ data: result }) => hexToBigInt(result ?? "0x0")),
        0n,
        `the taker's sell-token balance or allowance at block ${blockNumber}`,
      );
    const [balance, allowance] = await Promise.all([
      read(encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [relay.taker] })),
      // A token permit sets the allowance within the swap itself: only the balance says anything then.
      call.kind === "withTokenPermit" ? Promise.resolve(need) : read(encodeFunctionData({ abi: erc20Abi, functionName: "allowance", args: [relay.taker, permit2] })),
    ]);
    return balance < need || allowance < need;
  };
  const pullRefused = (blockNumber: bigint) => (call === undefined ? Promise.resolve(false) : takerPullRefused(client, permit2, relay.router, relay.taker, call, blockNumber));
  const [gateAtParent, gateAtBlock, codeWhenAccepted, codeWhenMined, nonceSpent, shortAtParent, shortAtBlock, atParent, unpricedAtParent, synced, venuesAtBlock, pullRefusedAtParent, pullRefusedAtBlock] = await Promise.all([
    routerGateOpen(client, relay.router, parent),
    routerGateOpen(client, relay.router, position.blockNumber),
    // A node without old state may not answer for that block: then it is not known (see below). A node
    // that cannot be reached defers the attribution.
    client.getCode({ address: relay.taker, blockNumber: relay.acceptedBlock }).catch((error: unknown): typeof UNKNOWN => {
      if (isNoAnswer(error)) throw new AttributionReadError("the taker's code when its relay was accepted", error);
      return UNKNOWN;
    }),
    client.getCode({ address: relay.taker, blockNumber: position.blockNumber }),
    isPermit2NonceUsed(client, permit2, relay),
    balanceAndAllowance(parent),
    balanceAndAllowance(position.blockNumber),
    route === undefined ? Promise.resolve(undefined) : routeStatesAt(client, relay.router, route, parent, uniswapV4),
    // A route not repriced (an exact-output SPLIT) is still checked for hops its router refuses.
    route !== undefined || shape === undefined ? Promise.resolve(undefined) : readRouteVenues(client, relay.router, shape.hops, parent, shape.exactOutput, uniswapV4),
    syncsBefore(client, route?.pairs ?? pairsOf(call), position),
    // The venues as the router reached them at the mined block's end: a propAMM pair the allowlist's
    // administrator removed within the block is refused there.
    shape === undefined ? Promise.resolve(undefined) : readRouteVenues(client, relay.router, shape.hops, position.blockNumber, shape.exactOutput, uniswapV4),
    pullRefused(parent),
    pullRefused(position.blockNumber),
  ]);
  let repriced: AttributionFacts["route"];
  let tradedBefore = synced.length > 0;
  // The API quoted only hops its routers reach, and the hand-off decoded the calldata and its actions: a hop refused at
  // the parent block, or bytes that no longer decode, are the operator's side.
  const venuesAtParent = atParent?.venues ?? unpricedAtParent;
  const routeRefused =
    call === undefined ||
    !actionsDecode(call) ||
    (shape !== undefined && ((venuesAtParent !== undefined && !venuesComplete(shape, venuesAtParent)) || (venuesAtBlock !== undefined && !venuesComplete(shape, venuesAtBlock))));
  if (route !== undefined && atParent !== undefined) {
    const { venues, states } = atParent;
    const [pairsMet, pools, v4Pools, propAmmLogs] = await Promise.all([
      pairStatesMet(client, states.pairs, position),
      v3PoolStatesMet(client, states.pools, position),
      v4PoolStatesMet(client, venues, states.v4Pools, position),
      propAmmLogsInBlock(client, venues, position),
    ]);
    tradedBefore ||= pools.tradedBefore || v4Pools.tradedBefore || propAmmLogs.before;
    // A propAMM changed within the block before the order: no block's end says what it quoted then.
    if (venuesComplete(route, venues) && !propAmmLogs.before) {
      // A propAMM's quote the order met: see propAmmQuoteBlocks (the lower of the parent's and the
      // block's end, or the parent's alone when the propAMM changed only after the order).
      const met = { pairs: pairsMet, pools: pools.met, v4Pools: v4Pools.met, propAmmBlocks: propAmmQuoteBlocks(propAmmLogs, position) };
      const [atParentOut, metOut] = await Promise.all([outputAt(client, route, venues, states), outputAt(client, route, venues, met)]);
      if (atParentOut !== undefined && metOut !== undefined) repriced = { minimum: route.minimum, atParent: atParentOut, met: metOut };
    }
  }
  const hasCode = (code: string | undefined) => code !== undefined && code !== "0x";
  // The code when accepted not known (old state the node does not keep): taken to be the code when
  // mined, the reading that never puts more on the taker (rule 2 of decideCause needs a fact).
  const whenMined = hasCode(codeWhenMined);
  const whenAccepted = codeWhenAccepted === UNKNOWN ? whenMined : hasCode(codeWhenAccepted);
  return {
    gateClosed: !gateAtParent || !gateAtBlock,
    route: repriced,
    tradedBefore,
    routeRefused,
    capBurnt: gas === undefined ? undefined : gas.used * 100n >= gas.limit * CAP_BURNT_PERCENT,
    takerCode: { whenAccepted, whenMined },
    nonceSpent,
    fundsShort: shortAtParent || shortAtBlock,
    takerPullRefused: pullRefusedAtParent || pullRefusedAtBlock,
  };
}

/** Whether the relay was sent again already after a mined failure: its swaps went out at more than one nonce. */
export function resentBefore(relay: Pick<RelayRecord, "transactions">): boolean {
  return new Set(relay.transactions.filter((transaction) => transaction.kind === "swap").map((transaction) => `${transaction.signer.toLowerCase()}:${transaction.nonce}`)).size > 1;
}

/** What the latest block says about sending the relay again (see `shouldRetry`); a failed read defers the attribution as in readAttributionFacts. */
export function readRetryFacts(client: PublicClient, relay: Relay, uniswapV4?: V4Contracts): Promise<RetryFacts> {
  return readOrDefer(readLatest(client, relay, uniswapV4), "the chain's latest state");
}

async function readLatest(client: PublicClient, relay: Relay, uniswapV4: V4Contracts | undefined): Promise<RetryFacts> {
  // The block itself, not getBlockNumber: viem caches that for seconds, and a stale number would
  // reprice before the very move that failed the order.
  const latest = (await client.getBlock({ blockTag: "latest" })).number;
  const call = decodeOrUndefined(relay.data);
  const route = pricedRoute(call);
  const [gateOpen, now] = await Promise.all([routerGateOpen(client, relay.router, latest), route === undefined ? Promise.resolve(undefined) : routeStatesAt(client, relay.router, route, latest, uniswapV4)]);
  const output = route === undefined || now === undefined || !venuesComplete(route, now.venues) ? undefined : await outputAt(client, route, now.venues, now.states);
  return {
    gateOpen,
    fillsNow: output === undefined ? undefined : output >= route!.minimum,
    resentBefore: resentBefore(relay),
  };
}
