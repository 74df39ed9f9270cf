// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title RouteActions
/// @notice Opcodes and operand decoding of the packed route-action format described in ISwapSettlement.
/// @dev Decoding reads calldata directly; callers check the length first with `width`.
library RouteActions {
    uint8 internal constant SWAP_V2 = 0x01;
    uint8 internal constant WRAP = 0x02;
    uint8 internal constant UNWRAP = 0x03;
    uint8 internal constant FEE = 0x04;

    /// @dev Opcode plus operands, in bytes; zero for an unknown opcode.
    uint256 internal constant SWAP_V2_WIDTH = 43;
    uint256 internal constant WRAP_WIDTH = 1;
    uint256 internal constant UNWRAP_WIDTH = 1;
    uint256 internal constant FEE_WIDTH = 23;

    /// @notice The encoded width of an action with `opcode`, or zero when the opcode is unknown.
    function width(uint8 opcode) internal pure returns (uint256) {
        if (opcode == SWAP_V2) return SWAP_V2_WIDTH;
        if (opcode == WRAP) return WRAP_WIDTH;
        if (opcode == UNWRAP) return UNWRAP_WIDTH;
        if (opcode == FEE) return FEE_WIDTH;
        return 0;
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
}
