// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IExactOutputSettlement} from "../interfaces/IExactOutputSettlement.sol";

/// @title ExactOutputInput
/// @notice The order's input of an exact-output route run backwards, accounted in the router's
/// transient storage as each first swap pays it: by the router itself (a V2 pair, a V3 pool's callback)
/// and by the Uniswap V4 module it reaches by DELEGATECALL (which runs in the router's context).
library ExactOutputInput {
    /// @dev keccak256("ExactOutputExecutor.inputUsed") - 1, the input paid so far; "…inputMax", the
    /// order's maximum; "…inputWrapped", whether the input is ETH to wrap as it is paid (a route
    /// starting with WRAP).
    uint256 private constant USED_SLOT = 0x20a3a604b09659a91ab7749847608d41dc5a78fc99597489a5a3514ed459351e;
    uint256 private constant MAX_SLOT = 0xc55928b8519d60d47f0a249ac7b4bfd9b0fe31d11a9eb6e9600aaecad07ee248;
    uint256 private constant WRAPPED_SLOT = 0x132cb65ff5553926a3c2449553cfa9557fdfd4de0fa0fa1df8c3dbcdb53542f3;

    /// @dev Starts a route run backwards: nothing paid yet of at most `maxIn`.
    function begin(uint256 maxIn, bool wrapped) internal {
        assembly ("memory-safe") {
            tstore(USED_SLOT, 0)
            tstore(MAX_SLOT, maxIn)
            tstore(WRAPPED_SLOT, wrapped)
        }
    }

    /// @dev Ends it, clearing the slots for the next order of the transaction; returns the input paid.
    function end() internal returns (uint256 used) {
        assembly ("memory-safe") {
            used := tload(USED_SLOT)
            tstore(USED_SLOT, 0)
            tstore(MAX_SLOT, 0)
            tstore(WRAPPED_SLOT, 0)
        }
    }

    /// @dev Counts `amount` more of the input as paid, never past the order's maximum; returns whether
    /// it is ETH the payer must wrap first.
    function spend(uint256 amount) internal returns (bool wrapped) {
        uint256 used;
        uint256 maxIn;
        assembly ("memory-safe") {
            used := tload(USED_SLOT)
            maxIn := tload(MAX_SLOT)
            wrapped := tload(WRAPPED_SLOT)
        }
        used += amount;
        if (used > maxIn) revert IExactOutputSettlement.SwapExcessiveInput(used, maxIn);
        assembly ("memory-safe") {
            tstore(USED_SLOT, used)
        }
    }
}
