// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title UniswapV4RunMode
/// @notice How a run of SWAP_V4 hops gets its input: the byte a router hands its UniswapV4Module with
/// each run (UniswapV4Hops writes it, the module reads it), declared once for both sides.
library UniswapV4RunMode {
    /// @dev The input is held by the router.
    uint256 internal constant IN_ROUTER = 0;
    /// @dev The input is already paid into the synced PoolManager (`_signedSellDestination`).
    uint256 internal constant AT_MANAGER = 1;
    /// @dev The run is priced backwards from its output (exact output): its input is paid from the
    /// order's input as ExactOutputInput accounts it.
    uint256 internal constant EXACT_OUTPUT = 2;
}
