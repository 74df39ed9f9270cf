// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {V4PoolKey, V4SwapParams} from "./DevV4Types.sol";

/// @title DevV4SwapObserverHook
/// @notice The devnet's observing Uniswap V4 hook: after every swap of its pools it counts the swap
/// and records its amounts, and changes nothing of what the swap pays. Its address carries only the
/// AFTER_SWAP permission (bit 6), so the PoolManager calls `afterSwap` and expects no delta from it:
/// quoting routes such a pool as a plain one.
/// @dev Deployed by CREATE2 at a mined salt so that the address's low 14 bits are exactly 0x0040.
contract DevV4SwapObserverHook {
    /// @notice The PoolManager whose pools this hook serves.
    address public immutable poolManager;
    /// @notice Swaps observed, over every pool.
    uint256 public swapCount;

    /// @notice A swap of pool `poolId` by `sender` settled these amounts (negative: paid into the pool).
    event SwapObserved(bytes32 indexed poolId, address indexed sender, int128 amount0, int128 amount1, uint256 swapCount);

    /// @notice A caller other than the PoolManager called a hook function.
    error DevV4HookNotPoolManager(address caller);

    /// @param poolManager_ The PoolManager that will call this hook.
    constructor(address poolManager_) {
        poolManager = poolManager_;
    }

    /// @notice The PoolManager's call after a swap: counts it and records the amounts.
    /// @param sender Who called `swap` on the PoolManager (a router).
    /// @param key The pool's key.
    /// @param delta The swap's balance delta (amount0 in the high 128 bits, amount1 in the low).
    /// @return The selector that acknowledges the call, and no delta (0).
    function afterSwap(address sender, V4PoolKey calldata key, V4SwapParams calldata, int256 delta, bytes calldata) external returns (bytes4, int128) {
        if (msg.sender != poolManager) revert DevV4HookNotPoolManager(msg.sender);
        uint256 count = swapCount + 1;
        swapCount = count;
        emit SwapObserved(keccak256(abi.encode(key)), sender, int128(delta >> 128), int128(delta), count);
        return (this.afterSwap.selector, 0);
    }
}
