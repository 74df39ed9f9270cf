// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {RouteActions} from "../libraries/RouteActions.sol";
import {UniswapV4RunMode} from "../libraries/UniswapV4RunMode.sol";
import {V2SwapMath} from "../libraries/V2SwapMath.sol";
import {PropAmmHops} from "./PropAmmHops.sol";
import {RegistryGate} from "./RegistryGate.sol";
import {UniswapV3Hops} from "./venues/UniswapV3Hops.sol";
import {UniswapV4Hops} from "./venues/UniswapV4Hops.sol";
import {V2Hops} from "./venues/V2Hops.sol";

/// @title VenueHops
/// @notice The router's venue table: which module runs a swap action of each opcode, where each venue
/// wants its input delivered, and the SPLIT legs whose hops may mix venues.
/// @dev Each venue is one module (an abstract contract under `venues/`) and one opcode: SWAP_V2 (0x01)
/// V2Hops, SWAP_V3 (0x06) UniswapV3Hops, SWAP_PROPAMM (0x07) PropAmmHops, SWAP_V4 (0x08) UniswapV4Hops
/// (a run of consecutive SWAP_V4 actions is one `_hopV4`, in one unlock: RouteExecutor's `_v4RunEnd`). Adding a venue means: its
/// opcode and width in RouteActions (`swapWidth`, and `hopTokenOut` if its tokenOut is not after a
/// 20-byte pool), its module among this contract's bases, and one line in `_hop` (and in `_hopInput` if
/// it takes its input before its swap call, as a V2 pair does).
/// `_split` sits here rather than in RouteExecutor because solidity-coverage's via-IR build lost one
/// of its branches there.
abstract contract VenueHops is V2Hops, UniswapV3Hops, PropAmmHops, UniswapV4Hops {
    /// @dev The propAMM module's filter (the other modules share RegistryGate's base, so the compiler
    /// wants the choice named here).
    function _syncPairFilter() internal override(RegistryGate, PropAmmHops) returns (uint128) {
        return PropAmmHops._syncPairFilter();
    }

    /// @dev Where the swap action at `offset` wants its input, so the previous hop hands its output
    /// straight there: a V2 pair takes it before its swap call; every other venue is paid by this router
    /// (V3 in its callback).
    function _hopInput(bytes calldata actions, uint256 offset) internal view returns (address) {
        if (RouteActions.opcodeAtInBounds(actions, offset) == RouteActions.SWAP_V2) return RouteActions.pairAt(actions, offset);
        return address(this);
    }

    /// @dev One swap action at `offset` through its venue's module: `amountIn` of `tokenIn`, already
    /// where the hop takes it when `delivered` (the V2 pair `_hopInput` names, or, for a signed sell's
    /// first SWAP_V4, the synced PoolManager), else held by this router; the output to `to`. Returns it.
    /// A SWAP_V4 action here is a run of one hop (a SPLIT leg's); RouteExecutor sends a longer run of
    /// them to `_hopV4` directly. Kept to these arguments: one more ran the instrumented (coverage) build
    /// of the SPLIT path out of stack.
    function _hop(
        bytes calldata actions,
        uint256 offset,
        address tokenIn,
        uint256 amountIn,
        bool delivered,
        address to,
        bool inLeg
    ) internal returns (uint256) {
        uint8 opcode = RouteActions.opcodeAtInBounds(actions, offset);
        if (opcode == RouteActions.SWAP_V4) {
            return _hopV4(actions, offset, offset + RouteActions.SWAP_V4_WIDTH, tokenIn, amountIn, delivered, to);
        }
        if (opcode != RouteActions.SWAP_PROPAMM) {
            // A propAMM hop's tokens are its pair's configured ones, which the allowlist keeps apart from
            // its pairs; any other venue's are checked here, before the hop moves or reads them. An input
            // handed over by the previous hop was that hop's (checked) output.
            _refusePair(RouteActions.hopTokenOut(actions, offset));
            if (!delivered) _refusePair(tokenIn);
        }
        if (opcode == RouteActions.SWAP_V2) return _swapV2(actions, offset, tokenIn, amountIn, delivered, to, inLeg);
        if (opcode == RouteActions.SWAP_V3) return _swapV3(actions, offset, tokenIn, amountIn, to);
        // The width table admits no other opcode here: the last one is SWAP_PROPAMM.
        (, uint256 amountOut) = _swapPropAmm(actions, offset, tokenIn, amountIn, to);
        return amountOut;
    }

    /// @dev The run of SWAP_V4 actions from `offset` to `end` (whole actions, checked by the caller),
    /// in one unlock, as `_hop` runs one action: every hop's output token (and the input, unless handed
    /// over by the previous hop) checked against the propAMM pairs first.
    function _hopV4(
        bytes calldata actions,
        uint256 offset,
        uint256 end,
        address tokenIn,
        uint256 amountIn,
        bool delivered,
        address to
    ) internal returns (uint256) {
        for (uint256 at = offset; at < end; at += RouteActions.SWAP_V4_WIDTH) {
            _refusePair(RouteActions.hopTokenOut(actions, at));
        }
        if (!delivered) _refusePair(tokenIn);
        // `_hopInput` is this router for a SWAP_V4 hop: an input delivered to the route's first action,
        // and to no other, was paid into the synced PoolManager (`_signedSellDestination`).
        return _swapV4(actions, offset, end, tokenIn, amountIn, delivered && offset == 0 ? UniswapV4RunMode.AT_MANAGER : UniswapV4RunMode.IN_ROUTER, to);
    }

    /// @dev A SPLIT (layout in ISwapSettlement; `RouteActions.splitWidth` already checked it). Its output
    /// never sits in a pair (`inPair` is always false, its default): legs end in the recipient or here. The running
    /// amount sits in this router: a split is never the target of a previous swap's hand-off, and a route
    /// starting with one has its sell token delivered here. Legs pay the recipient directly when the split
    /// ends the route in the buy token; the recipient's balance is then measured once around all legs.
    function _split(
        bytes calldata actions,
        address buyToken,
        address recipient,
        address tokenIn,
        uint256 amountIn,
        uint256 offset,
        uint256 nextOffset
    ) internal returns (address tokenOut, uint256 amountOut, bool inPair, bool paidOut) {
        uint256 legs = RouteActions.byteAt(actions, offset + 1);
        uint256 cursor = offset + RouteActions.SPLIT_HEADER_WIDTH;
        // The first leg's last hop names the token every leg must end in.
        tokenOut = RouteActions.splitTokenOut(actions, offset);
        inPair = false;
        // Native ETH is paid out by settlement (gas-capped, WETH as the fallback), never by a venue.
        paidOut = nextOffset == actions.length && tokenOut == buyToken && tokenOut != NATIVE;
        address destination = paidOut ? recipient : address(this);
        uint256 before = paidOut ? _balanceOf(tokenOut, recipient) : 0;
        uint256 remaining = amountIn;
        for (uint256 leg; leg < legs; ++leg) {
            // Shares add up to 10,000, so the other legs' amounts never exceed what remains.
            uint256 legIn = leg + 1 == legs ? remaining : (amountIn * RouteActions.uint16At(actions, cursor)) / V2SwapMath.BPS;
            remaining -= legIn;
            address legOut;
            (legOut, legIn, cursor) = _runLeg(actions, cursor, tokenIn, legIn, destination);
            if (legOut != tokenOut) revert SwapUnexpectedToken(tokenOut, legOut);
            amountOut += legIn;
        }
        // As for a last swap: what the recipient received, not what the formula says.
        if (paidOut) amountOut = _balanceOf(tokenOut, recipient) - before;
    }

    /// @dev One leg of a split, its header at byte `cursor`: its swap actions, each handing its output
    /// straight to the next hop's input (`_hopInput`), the last one to `destination`. A leg whose share
    /// rounds to nothing is not traded (a pool refuses a zero swap); its tokens are still followed.
    /// Returns the leg's output token and amount, and the offset just past the leg.
    function _runLeg(bytes calldata actions, uint256 cursor, address token, uint256 amount, address destination)
        internal
        returns (address, uint256, uint256)
    {
        uint256 hops = RouteActions.byteAt(actions, cursor + 2);
        cursor += RouteActions.LEG_HEADER_WIDTH;
        // Each hop runs alone, SWAP_V4 included (one unlock per V4 hop of a leg): grouping a leg's V4
        // hops was measured to cost every split route gas (docs/contracts/uniswap-v4.md).
        for (uint256 hop; hop < hops; ++hop) {
            uint256 next = cursor + RouteActions.swapWidth(RouteActions.opcodeAtInBounds(actions, cursor));
            address tokenOut = RouteActions.hopTokenOut(actions, cursor);
            if (amount != 0) {
                address to = hop + 1 == hops ? destination : _hopInput(actions, next);
                // The first hop's input is in this router; each later one's was handed to its input.
                amount = _hop(actions, cursor, token, amount, hop != 0, to, true);
            }
            (token, cursor) = (tokenOut, next);
        }
        return (token, amount, cursor);
    }
}
