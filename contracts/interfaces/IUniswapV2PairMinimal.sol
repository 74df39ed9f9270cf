// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The two calls the router makes on a Uniswap-V2-style pair.
interface IUniswapV2PairMinimal {
    /// @notice Reserves as of the pair's last sync.
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);

    /// @notice Sends the outputs to `to`; the inputs must already be in the pair.
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}
