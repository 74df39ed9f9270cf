// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISwapSettlement} from "../interfaces/ISwapSettlement.sol";

/// @title RouteActions
/// @notice Opcodes and operand decoding of the packed route-action format described in ISwapSettlement.
/// @dev Decoding reads calldata directly; callers check the length first with `width`.
library RouteActions {
    uint8 internal constant SWAP_V2 = 0x01;
    uint8 internal constant WRAP = 0x02;
    uint8 internal constant UNWRAP = 0x03;
    uint8 internal constant FEE = 0x04;
    uint8 internal constant SPLIT = 0x05;
    uint8 internal constant SWAP_V3 = 0x06;
    uint8 internal constant SWAP_PROPAMM = 0x07;
    uint8 internal constant SWAP_V4 = 0x08;

    /// @notice The native-asset placeholder routes use for sell and buy tokens (a V4 hop's tokenOut of
    /// address zero, V4's native currency, leaves the running token this).
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    /// @dev Opcode plus operands, in bytes; zero for an unknown opcode.
    uint256 internal constant SWAP_V2_WIDTH = 43;
    uint256 internal constant WRAP_WIDTH = 1;
    uint256 internal constant UNWRAP_WIDTH = 1;
    uint256 internal constant FEE_WIDTH = 23;
    /// @dev SWAP_V3: tokenOut (20), pool fee (uint24, 3), venue index (1).
    uint256 internal constant SWAP_V3_WIDTH = 25;
    /// @dev SWAP_PROPAMM: pair (20), tokenOut (20).
    uint256 internal constant SWAP_PROPAMM_WIDTH = 41;
    /// @dev SWAP_V4: tokenOut (20), fee (uint24, 3), tickSpacing (int24, 3), hooks (20).
    uint256 internal constant SWAP_V4_WIDTH = 47;

    /// @dev SPLIT layout: opcode, leg count, then per leg a 2-byte share in bps, a 1-byte hop count and
    /// that many hops, each a whole swap action with its opcode (SWAP_V2, SWAP_V3, SWAP_PROPAMM or SWAP_V4).
    uint256 internal constant SPLIT_HEADER_WIDTH = 2;
    uint256 internal constant LEG_HEADER_WIDTH = 3;
    /// @notice Bounds of a SPLIT: at most 3 legs of at most 3 hops, so one action runs at most 9 swaps.
    uint256 internal constant MIN_SPLIT_LEGS = 2;
    uint256 internal constant MAX_SPLIT_LEGS = 3;
    uint256 internal constant MAX_LEG_HOPS = 3;

    /// @dev Byte `opcode` of each word is that opcode's width (zero: unknown, or SPLIT): one `byte`
    /// instruction instead of a chain of comparisons inlined at every call site.
    uint256 private constant WIDTHS = 0x002b0101170019292f0000000000000000000000000000000000000000000000;
    uint256 private constant SWAP_WIDTHS = 0x002b0000000019292f0000000000000000000000000000000000000000000000;

    /// @notice The encoded width of a fixed-width action with `opcode`, or zero when the opcode is
    /// unknown or SPLIT (whose width depends on its legs: `splitWidth`, kept off the common path).
    function width(uint8 opcode) internal pure returns (uint256 result) {
        assembly ("memory-safe") {
            result := byte(opcode, WIDTHS)
        }
    }

    /// @notice The encoded width of a swap action (one hop on one venue) with `opcode`; zero for any
    /// other opcode. A new venue adds its opcode here and in RouteExecutor's hop dispatch.
    function swapWidth(uint8 opcode) internal pure returns (uint256 result) {
        assembly ("memory-safe") {
            result := byte(opcode, SWAP_WIDTHS)
        }
    }

    /// @notice The output token of the swap action at `offset` (SWAP_V3 and SWAP_V4 name it first, the
    /// others after their pool). Address zero (V4's native currency) yields NATIVE: only a V4 pool
    /// pays it out, and any other venue's hop into NATIVE is refused.
    function hopTokenOut(bytes calldata actions, uint256 offset) internal pure returns (address tokenOut) {
        uint8 opcode = opcodeAtInBounds(actions, offset);
        uint256 at = opcode == SWAP_V2 || opcode == SWAP_PROPAMM ? offset + 21 : offset + 1;
        assembly ("memory-safe") {
            tokenOut := shr(96, calldataload(add(actions.offset, at)))
            tokenOut := or(tokenOut, mul(iszero(tokenOut), NATIVE))
        }
    }

    /// @notice Operands of a SWAP_V3 action starting at `offset`.
    function decodeSwapV3(bytes calldata actions, uint256 offset)
        internal
        pure
        returns (address tokenOut, uint24 fee, uint256 venue)
    {
        assembly ("memory-safe") {
            let word := calldataload(add(add(actions.offset, offset), 1))
            tokenOut := shr(96, word)
            fee := and(shr(72, word), 0xffffff)
            venue := and(shr(64, word), 0xff)
        }
    }

    /// @notice The byte at `offset`, for callers that already checked `offset < actions.length`.
    function byteAt(bytes calldata actions, uint256 offset) internal pure returns (uint256 value) {
        assembly ("memory-safe") {
            value := byte(0, calldataload(add(actions.offset, offset)))
        }
    }

    /// @notice The 2-byte big-endian word at `offset`, for callers that already checked its bounds.
    function uint16At(bytes calldata actions, uint256 offset) internal pure returns (uint256 value) {
        assembly ("memory-safe") {
            value := shr(240, calldataload(add(actions.offset, offset)))
        }
    }

    /// @notice The opcode at byte `offset` (zero past the end).
    function opcodeAt(bytes calldata actions, uint256 offset) internal pure returns (uint8 opcode) {
        if (offset >= actions.length) return 0;
        assembly ("memory-safe") {
            opcode := byte(0, calldataload(add(actions.offset, offset)))
        }
    }

    /// @notice The opcode at byte `offset`, for callers that already know `offset < actions.length`.
    function opcodeAtInBounds(bytes calldata actions, uint256 offset) internal pure returns (uint8 opcode) {
        assembly ("memory-safe") {
            opcode := byte(0, calldataload(add(actions.offset, offset)))
        }
    }

    /// @notice Operands of a SWAP_V2 action starting at `offset`.
    function decodeSwapV2(bytes calldata actions, uint256 offset)
        internal
        pure
        returns (address pair, address tokenOut, uint256 feeBps)
    {
        assembly ("memory-safe") {
            let start := add(add(actions.offset, offset), 1)
            pair := shr(96, calldataload(start))
            tokenOut := shr(96, calldataload(add(start, 20)))
            feeBps := shr(240, calldataload(add(start, 40)))
        }
    }

    /// @notice The token every leg of the SPLIT at `offset` ends in: the first leg's last hop's output.
    /// @dev For a split `splitWidth` already checked.
    function splitTokenOut(bytes calldata actions, uint256 offset) internal pure returns (address tokenOut) {
        uint256 cursor = offset + SPLIT_HEADER_WIDTH;
        uint256 hops = byteAt(actions, cursor + 2);
        cursor += LEG_HEADER_WIDTH;
        for (uint256 hop = 1; hop < hops; ++hop) {
            cursor += swapWidth(opcodeAtInBounds(actions, cursor));
        }
        tokenOut = hopTokenOut(actions, cursor);
    }

    /// @notice The offset just past the leg whose header is at `cursor` (its hops' widths summed), and
    /// its hop count, for a split `splitWidth` already checked.
    function legEnd(bytes calldata actions, uint256 cursor) internal pure returns (uint256 end, uint256 hops) {
        hops = byteAt(actions, cursor + 2);
        end = cursor + LEG_HEADER_WIDTH;
        for (uint256 hop; hop < hops; ++hop) {
            end += swapWidth(opcodeAtInBounds(actions, end));
        }
    }

    /// @notice The pair of the SWAP_V2 action at `offset`.
    function pairAt(bytes calldata actions, uint256 offset) internal pure returns (address pair) {
        assembly ("memory-safe") {
            pair := shr(96, calldataload(add(add(actions.offset, offset), 1)))
        }
    }

    /// @notice Operands of a FEE action starting at `offset`.
    function decodeFee(bytes calldata actions, uint256 offset) internal pure returns (uint256 bps, address recipient) {
        assembly ("memory-safe") {
            let start := add(add(actions.offset, offset), 1)
            bps := shr(240, calldataload(start))
            recipient := shr(96, calldataload(add(start, 2)))
        }
    }

    /// @notice The encoded width of the SPLIT at `offset`, after checking its leg count, hop counts and
    /// shares. Every read is bounds-checked first: a truncated split must not read the calldata after it.
    /// @dev At most 3 legs are walked, so the loop is bounded whatever the calldata says.
    function splitWidth(bytes calldata actions, uint256 offset) internal pure returns (uint256) {
        uint256 length = actions.length;
        // offset < length (the caller read the opcode there), so none of these sums can wrap.
        unchecked {
            uint256 cursor = offset + SPLIT_HEADER_WIDTH;
            if (cursor > length) revert ISwapSettlement.SwapTruncatedAction(offset);
            uint256 legs = byteAt(actions, offset + 1);
            if (legs < MIN_SPLIT_LEGS || legs > MAX_SPLIT_LEGS) revert ISwapSettlement.SwapSplitLegCount(offset, legs);
            uint256 totalBps;
            for (uint256 leg; leg < legs; ++leg) {
                if (cursor + LEG_HEADER_WIDTH > length) revert ISwapSettlement.SwapTruncatedAction(offset);
                uint256 share = uint16At(actions, cursor);
                uint256 hops = byteAt(actions, cursor + 2);
                if (share == 0) revert ISwapSettlement.SwapSplitShares(offset, 0);
                if (hops == 0 || hops > MAX_LEG_HOPS) revert ISwapSettlement.SwapSplitHopCount(offset, hops);
                totalBps += share;
                cursor += LEG_HEADER_WIDTH;
                // Each hop is a whole swap action; its opcode is read only inside the actions.
                for (uint256 hop; hop < hops; ++hop) {
                    if (cursor >= length) revert ISwapSettlement.SwapTruncatedAction(offset);
                    uint8 opcode = opcodeAtInBounds(actions, cursor);
                    uint256 hopWidth = swapWidth(opcode);
                    if (hopWidth == 0) revert ISwapSettlement.SwapUnknownAction(opcode, cursor);
                    cursor += hopWidth;
                }
            }
            if (totalBps != 10_000) revert ISwapSettlement.SwapSplitShares(offset, totalBps);
            return cursor - offset;
        }
    }
}
