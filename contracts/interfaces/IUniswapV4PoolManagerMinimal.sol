// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IUniswapV4PoolManagerMinimal
/// @notice The part of Uniswap V4's PoolManager a SWAP_V4 hop calls, ABI-identical to v4-core's
/// (`Currency` and `IHooks` are addresses there; a currency of address zero is native ETH, and a
/// `BalanceDelta` is an int256 packing amount0 in its upper 128 bits and amount1 in its lower 128).
interface IUniswapV4PoolManagerMinimal {
    /// @notice A pool's key: its sorted currencies, LP fee, tick spacing and hooks contract.
    struct PoolKey {
        address currency0;
        address currency1;
        uint24 fee;
        int24 tickSpacing;
        address hooks;
    }

    /// @notice One swap: its direction, the amount (negative: exact input) and the price limit.
    /// @dev The field order is v4-core's ABI, not ours to pack.
    // solhint-disable-next-line gas-struct-packing
    struct SwapParams {
        bool zeroForOne;
        int256 amountSpecified;
        uint160 sqrtPriceLimitX96;
    }

    /// @notice Calls back `unlockCallback(data)` on the caller, which must leave no currency owed.
    /// @param data Handed to the callback unchanged.
    /// @return The callback's return data.
    function unlock(bytes calldata data) external returns (bytes memory);

    /// @notice Swaps in the pool `key`, during an unlock.
    /// @param key The pool.
    /// @param params The direction, amount and price limit.
    /// @param hookData Passed to the pool's hooks.
    /// @return swapDelta What the caller owes (negative) or is owed (positive) in each currency.
    function swap(PoolKey calldata key, SwapParams calldata params, bytes calldata hookData) external returns (int256 swapDelta);

    /// @notice Records `currency`'s balance so that the next `settle` credits what arrived since.
    /// @param currency The ERC20 about to be paid in (never native ETH).
    function sync(address currency) external;

    /// @notice Credits the caller with what arrived since `sync` (or the value sent, for native ETH).
    /// @return paid The amount credited.
    function settle() external payable returns (uint256 paid);

    /// @notice Pays `amount` of `currency` to `to` out of what the caller is owed.
    /// @param currency The currency (address zero: native ETH).
    /// @param to The receiver.
    /// @param amount The amount.
    function take(address currency, address to, uint256 amount) external;
}
