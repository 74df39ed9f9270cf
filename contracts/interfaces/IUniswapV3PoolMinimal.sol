// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The one call the router makes on a Uniswap-V3-style pool.
interface IUniswapV3PoolMinimal {
    /// @notice Swaps `amountSpecified` (positive: exact input; negative: exact output) and calls
    /// `uniswapV3SwapCallback` on the caller for the input before checking it arrived.
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data)
        external
        returns (int256 amount0, int256 amount1);
}
