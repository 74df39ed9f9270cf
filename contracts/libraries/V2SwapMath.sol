// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title V2SwapMath
/// @notice Constant-product output amounts, identical to UniswapV2Library.getAmountOut when
/// `feeBps` is 30 (997/1000 is 9970/10000, and the floor division gives the same result).
library V2SwapMath {
    uint256 internal constant BPS = 10_000;
    /// @notice `amountIn` is at least 2^128 (far beyond any token supply) or a reserve does not fit
    /// in 112 bits (no V2 pair can report that): the bounds that let the products skip overflow checks.
    error V2SwapMathOutOfRange(uint256 amountIn, uint256 reserveIn, uint256 reserveOut);
    /// @notice A pool holding `reserveOut` cannot pay out `amountOut` (it would need all of it or more).
    error V2SwapMathInsufficientLiquidity(uint256 amountOut, uint256 reserveOut);

    /// @notice The output for `amountIn` against reserves (`reserveIn`, `reserveOut`) and a pool fee.
    /// @dev With reserves below 2^112, `feeBps` < BPS and amountIn below 2^128, every product stays
    /// below 2^254. Zero reserves and a zero input give zero, not a division panic.
    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feeBps)
        internal
        pure
        returns (uint256 amountOut)
    {
        unchecked {
            if ((amountIn >> 128) | ((reserveIn | reserveOut) >> 112) != 0) {
                revert V2SwapMathOutOfRange(amountIn, reserveIn, reserveOut);
            }
            uint256 amountInWithFee = amountIn * (BPS - feeBps);
            uint256 denominator = reserveIn * BPS + amountInWithFee;
            if (denominator != 0) amountOut = (amountInWithFee * reserveOut) / denominator;
        }
    }

    /// @notice The least input that makes `getAmountOut` pay at least `amountOut`, identical to
    /// UniswapV2Library.getAmountIn when `feeBps` is 30: rounded up, so the pool's K check passes.
    /// @dev `amountOut` < `reserveOut` < 2^112 and `reserveIn` < 2^112, so the numerator stays below
    /// 2^238 and the denominator is non-zero (`feeBps` < BPS and `amountOut` < `reserveOut`).
    function getAmountIn(uint256 amountOut, uint256 reserveIn, uint256 reserveOut, uint256 feeBps)
        internal
        pure
        returns (uint256 amountIn)
    {
        if ((reserveIn | reserveOut) >> 112 != 0) revert V2SwapMathOutOfRange(amountOut, reserveIn, reserveOut);
        if (amountOut >= reserveOut || reserveIn == 0) revert V2SwapMathInsufficientLiquidity(amountOut, reserveOut);
        unchecked {
            amountIn = (reserveIn * amountOut * BPS) / ((reserveOut - amountOut) * (BPS - feeBps)) + 1;
        }
    }
}
