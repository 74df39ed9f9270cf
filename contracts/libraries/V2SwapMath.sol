// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title V2SwapMath
/// @notice Constant-product output amounts, identical to UniswapV2Library.getAmountOut when
/// `feeBps` is 30 (997/1000 is 9970/10000, and the floor division gives the same result).
library V2SwapMath {
    uint256 internal constant BPS = 10_000;

    /// @notice The output for `amountIn` against reserves (`reserveIn`, `reserveOut`) and a pool fee.
    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feeBps)
        internal
        pure
        returns (uint256)
    {
        uint256 amountInWithFee = amountIn * (BPS - feeBps);
        return (amountInWithFee * reserveOut) / (reserveIn * BPS + amountInWithFee);
    }
}
