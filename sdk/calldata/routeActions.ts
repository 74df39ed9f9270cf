import { concatHex, getAddress, keccak256, numberToHex, size, sliceHex, type Address, type Hex } from "viem";
import { RouteActionError } from "../errors/calldata";

/**
 * One step of a route, mirroring the packed format the routers execute (see ISwapSettlement.sol):
 * - `swapV2`: swap the running amount through a Uniswap-V2-style pair into `tokenOut`;
 * - `wrap` / `unwrap`: native ETH to WETH and back;
 * - `fee`: pay `bps` of the running amount to `recipient` (the platform fee, placed after the swaps).
 */
export type RouteAction =
  | { type: "swapV2"; pair: Address; tokenOut: Address; feeBps: number }
  | { type: "wrap" }
  | { type: "unwrap" }
  | { type: "fee"; bps: number; recipient: Address };

export const RouteOpcode = { swapV2: 0x01, wrap: 0x02, unwrap: 0x03, fee: 0x04 } as const;

/** The router's cap on actions per route. */
export const MAX_ROUTE_ACTIONS = 8;

function checkBps(value: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new RouteActionError(`${what} ${value} is not an integer from 0 to ${max}`);
}

/** Packs actions into the bytes a router executes and a witness hashes. */
export function encodeRouteActions(actions: readonly RouteAction[]): Hex {
  if (actions.length > MAX_ROUTE_ACTIONS) throw new RouteActionError(`a route holds at most ${MAX_ROUTE_ACTIONS} actions, got ${actions.length}`);
  const parts: Hex[] = actions.map((action) => {
    switch (action.type) {
      case "swapV2":
        checkBps(action.feeBps, 9999, "pool fee bps");
        return concatHex([numberToHex(RouteOpcode.swapV2, { size: 1 }), getAddress(action.pair), getAddress(action.tokenOut), numberToHex(action.feeBps, { size: 2 })]);
      case "wrap":
        return numberToHex(RouteOpcode.wrap, { size: 1 });
      case "unwrap":
        return numberToHex(RouteOpcode.unwrap, { size: 1 });
      case "fee":
        checkBps(action.bps, 10_000, "fee bps");
        return concatHex([numberToHex(RouteOpcode.fee, { size: 1 }), numberToHex(action.bps, { size: 2 }), getAddress(action.recipient)]);
    }
  });
  return concatHex(parts).toLowerCase() as Hex;
}

/** The actions hash a witness binds: keccak256 of the packed actions, exactly as the router computes it. */
export function hashRouteActions(encoded: Hex): Hex {
  return keccak256(encoded);
}

/** Unpacks route actions, rejecting unknown opcodes and truncated operands. */
export function decodeRouteActions(encoded: Hex): RouteAction[] {
  const total = size(encoded);
  const actions: RouteAction[] = [];
  let offset = 0;
  while (offset < total) {
    const opcode = Number.parseInt(sliceHex(encoded, offset, offset + 1).slice(2), 16);
    const need = (width: number) => {
      if (offset + width > total) throw new RouteActionError(`action at byte ${offset} is truncated`);
    };
    if (opcode === RouteOpcode.swapV2) {
      need(43);
      actions.push({
        type: "swapV2",
        pair: getAddress(sliceHex(encoded, offset + 1, offset + 21)),
        tokenOut: getAddress(sliceHex(encoded, offset + 21, offset + 41)),
        feeBps: Number.parseInt(sliceHex(encoded, offset + 41, offset + 43).slice(2), 16),
      });
      offset += 43;
    } else if (opcode === RouteOpcode.wrap || opcode === RouteOpcode.unwrap) {
      actions.push({ type: opcode === RouteOpcode.wrap ? "wrap" : "unwrap" });
      offset += 1;
    } else if (opcode === RouteOpcode.fee) {
      need(23);
      actions.push({
        type: "fee",
        bps: Number.parseInt(sliceHex(encoded, offset + 1, offset + 3).slice(2), 16),
        recipient: getAddress(sliceHex(encoded, offset + 3, offset + 23)),
      });
      offset += 23;
    } else {
      throw new RouteActionError(`unknown action opcode 0x${opcode.toString(16).padStart(2, "0")} at byte ${offset}`);
    }
  }
  return actions;
}
