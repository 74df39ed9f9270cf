// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {V4PoolKey, V4SwapParams} from "../devnet/v4/DevV4Types.sol";
import {IUniswapV4PoolManagerMinimal} from "../interfaces/IUniswapV4PoolManagerMinimal.sol";

/// @title V4SyncingHook
/// @notice Test-only Uniswap V4 hook that, after each swap of its pools, calls the PoolManager's `sync`
/// on the swap's input currency: the PoolManager then counts only what arrives after this call as a
/// payment. A router that had a sell paid into the PoolManager before the swap and settled it after
/// would find nothing to settle. Its address carries only AFTER_SWAP (bit 6). Never deployed by the devnet.
contract V4SyncingHook {
    /// @notice The PoolManager whose pools this hook serves.
    address public immutable poolManager;

    /// @notice The hook synced `currency` after a swap.
    event V4SyncingHookSynced(address indexed currency);

    /// @notice A caller other than the PoolManager called the hook.
    error V4SyncingHookNotPoolManager(address caller);

    /// @param poolManager_ The PoolManager that will call this hook.
    constructor(address poolManager_) {
        poolManager = poolManager_;
    }

    /// @notice The PoolManager's call after a swap: syncs the swap's input currency.
    /// @param key The pool's key.
    /// @param params The swap's direction (and amount, unused).
    /// @return The selector that acknowledges the call, and no delta (0).
    function afterSwap(address, V4PoolKey calldata key, V4SwapParams calldata params, int256, bytes calldata) external returns (bytes4, int128) {
        if (msg.sender != poolManager) revert V4SyncingHookNotPoolManager(msg.sender);
        address currency = params.zeroForOne ? key.currency0 : key.currency1;
        IUniswapV4PoolManagerMinimal(poolManager).sync(currency);
        emit V4SyncingHookSynced(currency);
        return (this.afterSwap.selector, 0);
    }
}
