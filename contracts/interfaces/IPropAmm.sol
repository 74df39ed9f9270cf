// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IPropAmm
/// @notice The standard interface of a proprietary AMM ("propAMM"): a market maker's contract that
/// prices from its own oracle and inventory rather than from reserves a router could compute with.
/// @dev Token order is not part of the interface: it comes from configuration (PropAmmAllowlist),
/// `zeroForOne` meaning "sell the configured token0 for the configured token1". Exact input only.
interface IPropAmm {
    /// @notice What `swapExactIn` would pay right now for `amountIn`.
    /// @param zeroForOne True to sell token0 for token1, false for the other direction.
    /// @param amountIn The input, in the sold token's base units.
    /// @return amountOut The output, in the bought token's base units (zero when it cannot fill).
    function getAmountOut(bool zeroForOne, uint256 amountIn) external view returns (uint256 amountOut);

    /// @notice Sells exactly `amountIn`, pulled from the caller with `transferFrom`, and pays `to`.
    /// @dev Reverts when the output would be below `amountOutMin` or after `deadline`.
    /// @param zeroForOne True to sell token0 for token1, false for the other direction.
    /// @param amountIn The input, pulled from `msg.sender`.
    /// @param amountOutMin The least output accepted.
    /// @param to Who receives the output.
    /// @param deadline The last timestamp at which the swap may run.
    /// @return amountOut The output paid to `to`.
    function swapExactIn(bool zeroForOne, uint256 amountIn, uint256 amountOutMin, address to, uint256 deadline)
        external
        payable
        returns (uint256 amountOut);
}
