import { concatHex, getAddress, keccak256, numberToHex, size, sliceHex, type Address, type Hex } from "viem";
import { RouteActionError } from "../errors/calldata";

/** One hop through a Uniswap-V2-style pair: the pair, the token it pays out, the pool fee in bps. */
export type V2Hop = { pair: Address; tokenOut: Address; feeBps: number };

/** One path of a split: its share of the running amount in bps, and its hops. */
export type SplitLegAction = { shareBps: number; hops: V2Hop[] };

/**
 * One step of a route, mirroring the packed format the routers execute (see ISwapSettlement.sol):
 * - `swapV2`: swap the running amount through a Uniswap-V2-style pair into `tokenOut`;
 * - `wrap` / `unwrap`: native ETH to WETH and back;
 * - `fee`: pay `bps` of the running amount to `recipient` (the platform fee, placed after the swaps);
 * - `split`: sell the running amount along 2 or 3 paths that end in the same token; every leg but the
 *   last takes `amount × shareBps / 10,000`, the last the rest (`splitAmounts` computes them).
 */
export type RouteAction =
  | ({ type: "swapV2" } & V2Hop)
  | { type: "wrap" }
  | { type: "unwrap" }
  | { type: "fee"; bps: number; recipient: Address }
  | { type: "split"; legs: SplitLegAction[] };

export const RouteOpcode = { swapV2: 0x01, wrap: 0x02, unwrap: 0x03, fee: 0x04, split: 0x05 } as const;

/** The router's cap on actions per route (a split counts as one). */
export const MAX_ROUTE_ACTIONS = 8;
/** The router's bounds on a split: 2 or 3 legs of 1 to 3 hops. */
export const SPLIT_LEGS = { min: 2, max: 3 } as const;
export const MAX_LEG_HOPS = 3;

const SWAP_V2_WIDTH = 43;
const HOP_WIDTH = 42;

function checkBps(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new RouteActionError(`${what} ${value} is not an integer from ${min} to ${max}`);
}

function encodeHop(hop: V2Hop): Hex {
  checkBps(hop.feeBps, 0, 9999, "pool fee bps");
  return concatHex([getAddress(hop.pair), getAddress(hop.tokenOut), numberToHex(hop.feeBps, { size: 2 })]);
}

function encodeSplit(legs: readonly SplitLegAction[]): Hex {
  if (legs.length < SPLIT_LEGS.min || legs.length > SPLIT_LEGS.max) {
    throw new RouteActionError(`a split has ${SPLIT_LEGS.min} or ${SPLIT_LEGS.max} legs, got ${legs.length}`);
  }
  let total = 0;
  const parts: Hex[] = [numberToHex(RouteOpcode.split, { size: 1 }), numberToHex(legs.length, { size: 1 })];
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
        return concatHex([numberToHex(RouteOpcode.swapV2, { size: 1 }), encodeHop(action)]);
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
  const hopAt = (at: number): V2Hop => ({
    pair: getAddress(sliceHex(encoded, at, at + 20)),
    tokenOut: getAddress(sliceHex(encoded, at + 20, at + 40)),
    feeBps: uint(at + 40, 2),
  });
  while (offset < total) {
    const opcode = uint(offset, 1);
    if (opcode === RouteOpcode.swapV2) {
      need(SWAP_V2_WIDTH);
      actions.push({ type: "swapV2", ...hopAt(offset + 1) });
      offset += SWAP_V2_WIDTH;
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
      for (let leg = 0; leg < count; leg++) {
        if (cursor + 3 > total) throw new RouteActionError(`action at byte ${start} is truncated`);
        const hops = uint(cursor + 2, 1);
        if (cursor + 3 + hops * HOP_WIDTH > total) throw new RouteActionError(`action at byte ${start} is truncated`);
        legs.push({ shareBps: uint(cursor, 2), hops: Array.from({ length: hops }, (_, hop) => hopAt(cursor + 3 + hop * HOP_WIDTH)) });
        cursor += 3 + hops * HOP_WIDTH;
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
