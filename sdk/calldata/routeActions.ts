import { concatHex, getAddress, keccak256, numberToHex, size, sliceHex, type Address, type Hex } from "viem";
import { RouteActionError } from "../errors/calldata";

/** One hop through a Uniswap-V2-style pair: the pair, the token it pays out, the pool fee in bps. */
export type V2Hop = { pair: Address; tokenOut: Address; feeBps: number };

/**
 * One hop through a Uniswap-V3-style pool. The pool is not named: the router computes it from its V3
 * venue table entry `venue` (factory and pool init-code hash) and (running token, `tokenOut`, `fee`).
 * `fee` is the pool's fee tier in hundredths of a bip (3000 = 0.30 %).
 */
export type V3Hop = { tokenOut: Address; fee: number; venue: number };

/** One hop through an allowlisted propAMM pair (exact input only). */
export type PropAmmHop = { pair: Address; tokenOut: Address };

/**
 * One hop through a Uniswap V4 pool of the router's PoolManager. The pool key is (sorted(running token,
 * `tokenOut`), `fee`, `tickSpacing`, `hooks`). A V4 currency of address(0) is native ETH: `tokenOut`
 * address(0) leaves the running token native (the route may end there and pay ETH out), and a hop
 * whose running token is native pays the PoolManager in value. `fee` is the key's LP fee in
 * hundredths of a bip (uint24; 0x800000 marks a dynamic fee); `tickSpacing` an int24.
 */
export type V4Hop = { tokenOut: Address; fee: number; tickSpacing: number; hooks: Address };

/** A swap action on any venue: what a route runs as one action, and what a split leg's hops are. */
export type RouteHopAction = ({ type: "swapV2" } & V2Hop) | ({ type: "swapV3" } & V3Hop) | ({ type: "swapPropAmm" } & PropAmmHop) | ({ type: "swapV4" } & V4Hop);

/** Whether `action` is a swap hop (of any venue) rather than WRAP, UNWRAP, FEE or SPLIT. */
export function isHopAction(action: RouteAction): action is RouteHopAction {
  return action.type === "swapV2" || action.type === "swapV3" || action.type === "swapPropAmm" || action.type === "swapV4";
}

/** One path of a split: its share of the running amount in bps, and its hops (venues may mix). */
export type SplitLegAction = { shareBps: number; hops: RouteHopAction[] };

/**
 * One step of a route, mirroring the packed format the routers execute (see ISwapSettlement.sol):
 * - `swapV2`: swap the running amount through a Uniswap-V2-style pair into `tokenOut`;
 * - `swapV3`: swap it through the router's V3 venue `venue`'s pool of fee tier `fee` into `tokenOut`;
 * - `swapPropAmm`: swap it through an allowlisted propAMM `pair` into `tokenOut`;
 * - `swapV4`: swap it through the Uniswap V4 pool keyed by (running token, `tokenOut`, `fee`,
 *   `tickSpacing`, `hooks`) in the router's PoolManager (address(0) is native ETH);
 * - `wrap` / `unwrap`: native ETH to WETH and back;
 * - `fee`: pay `bps` of the running amount to `recipient` (the platform fee, placed after the swaps);
 * - `split`: sell the running amount along 2 or 3 paths that end in the same token; every leg but the
 *   last takes `amount × shareBps / 10,000`, the last the rest (`splitAmounts` computes them).
 */
export type RouteAction =
  | RouteHopAction
  | { type: "wrap" }
  | { type: "unwrap" }
  | { type: "fee"; bps: number; recipient: Address }
  | { type: "split"; legs: SplitLegAction[] };

export const RouteOpcode = { swapV2: 0x01, wrap: 0x02, unwrap: 0x03, fee: 0x04, split: 0x05, swapV3: 0x06, swapPropAmm: 0x07, swapV4: 0x08 } as const;

/** The router's cap on actions per route (a split counts as one). */
export const MAX_ROUTE_ACTIONS = 8;
/** The router's bounds on a split: 2 or 3 legs of 1 to 3 hops. */
export const SPLIT_LEGS = { min: 2, max: 3 } as const;
export const MAX_LEG_HOPS = 3;

/** Encoded widths of the swap actions, opcode included. */
const SWAP_WIDTH: Readonly<Record<number, number>> = { [RouteOpcode.swapV2]: 43, [RouteOpcode.swapV3]: 25, [RouteOpcode.swapPropAmm]: 41, [RouteOpcode.swapV4]: 47 };
/** SWAP_V4's int24 tick spacing and uint24 fee: what its operands can carry (the PoolManager refuses keys it never initialised). */
const INT24 = { min: -(2 ** 23), max: 2 ** 23 - 1 } as const;
const UINT24_MAX = 2 ** 24 - 1;
/** The most V3 venues a router has (venue indexes 0 to 3). */
export const MAX_V3_VENUES = 4;

function checkBps(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new RouteActionError(`${what} ${value} is not an integer from ${min} to ${max}`);
}

const opcodeHex = (opcode: number): Hex => numberToHex(opcode, { size: 1 });

/** A swap action, opcode included (a whole action, or one hop of a split leg). */
function encodeHop(hop: RouteHopAction): Hex {
  switch (hop.type) {
    case "swapV2":
      checkBps(hop.feeBps, 0, 9999, "pool fee bps");
      return concatHex([opcodeHex(RouteOpcode.swapV2), getAddress(hop.pair), getAddress(hop.tokenOut), numberToHex(hop.feeBps, { size: 2 })]);
    case "swapV3":
      checkBps(hop.fee, 0, 999_999, "V3 pool fee");
      checkBps(hop.venue, 0, MAX_V3_VENUES - 1, "V3 venue index");
      return concatHex([opcodeHex(RouteOpcode.swapV3), getAddress(hop.tokenOut), numberToHex(hop.fee, { size: 3 }), numberToHex(hop.venue, { size: 1 })]);
    case "swapPropAmm":
      return concatHex([opcodeHex(RouteOpcode.swapPropAmm), getAddress(hop.pair), getAddress(hop.tokenOut)]);
    case "swapV4":
      checkBps(hop.fee, 0, UINT24_MAX, "V4 pool fee");
      checkBps(hop.tickSpacing, INT24.min, INT24.max, "V4 tick spacing");
      // int24 two's complement: a negative spacing is 2^24 + spacing.
      return concatHex([opcodeHex(RouteOpcode.swapV4), getAddress(hop.tokenOut), numberToHex(hop.fee, { size: 3 }), numberToHex(hop.tickSpacing < 0 ? 2 ** 24 + hop.tickSpacing : hop.tickSpacing, { size: 3 }), getAddress(hop.hooks)]);
  }
}

function encodeSplit(legs: readonly SplitLegAction[]): Hex {
  if (legs.length < SPLIT_LEGS.min || legs.length > SPLIT_LEGS.max) {
    throw new RouteActionError(`a split has ${SPLIT_LEGS.min} or ${SPLIT_LEGS.max} legs, got ${legs.length}`);
  }
  let total = 0;
  const parts: Hex[] = [opcodeHex(RouteOpcode.split), numberToHex(legs.length, { size: 1 })];
  for (const [index, leg] of legs.entries()) {
    checkBps(leg.shareBps, 1, 10_000, `split leg ${index} share bps`);
    if (leg.hops.length < 1 || leg.hops.length > MAX_LEG_HOPS) throw new RouteActionError(`split leg ${index} has ${leg.hops.length} hops; a leg has 1 to ${MAX_LEG_HOPS}`);
    const end = leg.hops.at(-1)!.tokenOut.toLowerCase();
    if (end !== legs[0]!.hops.at(-1)!.tokenOut.toLowerCase()) throw new RouteActionError(`split leg ${index} ends in ${end}, not in the first leg's token`);
    total += leg.shareBps;
    parts.push(numberToHex(leg.shareBps, { size: 2 }), numberToHex(leg.hops.length, { size: 1 }), ...leg.hops.map(encodeHop));
  }
  if (total !== 10_000) throw new RouteActionError(`split leg shares add up to ${total} bps; they must add up to 10000`);
  return concatHex(parts);
}

/** Packs actions into the bytes a router executes and a witness hashes. */
export function encodeRouteActions(actions: readonly RouteAction[]): Hex {
  if (actions.length > MAX_ROUTE_ACTIONS) throw new RouteActionError(`a route holds at most ${MAX_ROUTE_ACTIONS} actions, got ${actions.length}`);
  const parts: Hex[] = actions.map((action) => {
    switch (action.type) {
      case "swapV2":
      case "swapV3":
      case "swapPropAmm":
      case "swapV4":
        return encodeHop(action);
      case "wrap":
        return numberToHex(RouteOpcode.wrap, { size: 1 });
      case "unwrap":
        return numberToHex(RouteOpcode.unwrap, { size: 1 });
      case "fee":
        checkBps(action.bps, 0, 10_000, "fee bps");
        return concatHex([numberToHex(RouteOpcode.fee, { size: 1 }), numberToHex(action.bps, { size: 2 }), getAddress(action.recipient)]);
      case "split":
        return encodeSplit(action.legs);
    }
  });
  return concatHex(parts).toLowerCase() as Hex;
}

/**
 * The amounts a split of `amount` gives its legs on chain: `amount × share / 10,000` rounded down for
 * every leg but the last, which takes the rest. A quote prices each leg at exactly these amounts.
 */
export function splitAmounts(amount: bigint, sharesBps: readonly number[]): bigint[] {
  let remaining = amount;
  return sharesBps.map((share, index) => {
    const legIn = index === sharesBps.length - 1 ? remaining : (amount * BigInt(share)) / 10_000n;
    remaining -= legIn;
    return legIn;
  });
}

/** The actions hash a witness binds: keccak256 of the packed actions, exactly as the router computes it. */
export function hashRouteActions(encoded: Hex): Hex {
  return keccak256(encoded);
}

/** Unpacks route actions, rejecting unknown opcodes, truncated operands and malformed splits. */
export function decodeRouteActions(encoded: Hex): RouteAction[] {
  const total = size(encoded);
  const actions: RouteAction[] = [];
  let offset = 0;
  const need = (width: number) => {
    if (offset + width > total) throw new RouteActionError(`action at byte ${offset} is truncated`);
  };
  const uint = (from: number, bytes: number) => Number.parseInt(sliceHex(encoded, from, from + bytes).slice(2), 16);
  const address = (at: number) => getAddress(sliceHex(encoded, at, at + 20));
  // The swap action at `at` (whose opcode and width the caller checked).
  const hopAt = (at: number): RouteHopAction => {
    const opcode = uint(at, 1);
    if (opcode === RouteOpcode.swapV2) return { type: "swapV2", pair: address(at + 1), tokenOut: address(at + 21), feeBps: uint(at + 41, 2) };
    if (opcode === RouteOpcode.swapV3) return { type: "swapV3", tokenOut: address(at + 1), fee: uint(at + 21, 3), venue: uint(at + 24, 1) };
    if (opcode === RouteOpcode.swapV4) {
      const spacing = uint(at + 24, 3);
      return { type: "swapV4", tokenOut: address(at + 1), fee: uint(at + 21, 3), tickSpacing: spacing > INT24.max ? spacing - 2 ** 24 : spacing, hooks: address(at + 27) };
    }
    return { type: "swapPropAmm", pair: address(at + 1), tokenOut: address(at + 21) };
  };
  while (offset < total) {
    const opcode = uint(offset, 1);
    const swapWidth = SWAP_WIDTH[opcode];
    if (swapWidth !== undefined) {
      need(swapWidth);
      actions.push(hopAt(offset));
      offset += swapWidth;
    } else if (opcode === RouteOpcode.wrap || opcode === RouteOpcode.unwrap) {
      actions.push({ type: opcode === RouteOpcode.wrap ? "wrap" : "unwrap" });
      offset += 1;
    } else if (opcode === RouteOpcode.fee) {
      need(23);
      actions.push({ type: "fee", bps: uint(offset + 1, 2), recipient: getAddress(sliceHex(encoded, offset + 3, offset + 23)) });
      offset += 23;
    } else if (opcode === RouteOpcode.split) {
      need(2);
      const start = offset;
      const legs: SplitLegAction[] = [];
      const count = uint(offset + 1, 1);
      let cursor = offset + 2;
      const truncated = () => new RouteActionError(`action at byte ${start} is truncated`);
      for (let leg = 0; leg < count; leg++) {
        if (cursor + 3 > total) throw truncated();
        const hopCount = uint(cursor + 2, 1);
        const shareBps = uint(cursor, 2);
        cursor += 3;
        const hops: RouteHopAction[] = [];
        for (let hop = 0; hop < hopCount; hop++) {
          if (cursor >= total) throw truncated();
          const hopOpcode = uint(cursor, 1);
          const hopWidth = SWAP_WIDTH[hopOpcode];
          if (hopWidth === undefined) throw new RouteActionError(`unknown hop opcode 0x${hopOpcode.toString(16).padStart(2, "0")} at byte ${cursor} of a split`);
          if (cursor + hopWidth > total) throw truncated();
          hops.push(hopAt(cursor));
          cursor += hopWidth;
        }
        legs.push({ shareBps, hops });
      }
      // Re-encoding checks the leg count, hop counts, shares and common end token as the router does.
      encodeSplit(legs);
      actions.push({ type: "split", legs });
      offset = cursor;
    } else {
      throw new RouteActionError(`unknown action opcode 0x${opcode.toString(16).padStart(2, "0")} at byte ${offset}`);
    }
  }
  return actions;
}
