// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice A Uniswap V4 pool's key, laid out as v4-core's PoolKey (currencies sorted, address(0) is
/// native ETH; `hooks`' low 14 bits are its permission flags). Declared here so the devnet's hooks
/// compile without v4-core's sources, which need another compiler.
struct V4PoolKey {
    address currency0;
    address currency1;
    uint24 fee;
    int24 tickSpacing;
    address hooks;
}

/// @notice A swap's parameters as the PoolManager passes them to hooks: a negative `amountSpecified`
/// is an exact input, a positive one an exact output. The field order is the ABI's, not ours to pack.
// solhint-disable-next-line gas-struct-packing
struct V4SwapParams {
    bool zeroForOne;
    int256 amountSpecified;
    uint160 sqrtPriceLimitX96;
}

/// @notice The part of the PoolManager a devnet hook calls: taking what the pool owes it.
interface IV4PoolManagerTake {
    /// @notice Sends `amount` of `currency` to `to`, owed by the caller's delta.
    /// @param currency The token (address(0) for ETH).
    /// @param to Who receives it.
    /// @param amount How much.
    function take(address currency, address to, uint256 amount) external;
}
