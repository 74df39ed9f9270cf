// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title FakePair
/// @notice Test-only look-alike of a Uniswap V2 pair: it reports whatever reserves it is told and its
/// `swap` pays nothing. Routes through it would make a router's formula "produce" tokens that were
/// never paid, which is how strays in a router could be swept. Never deployed by the devnet.
contract FakePair {
    uint112 private _reserve0;
    uint112 private _reserve1;

    /// @notice Sets the reserves it reports.
    /// @param reserve0 Reported reserve of token0.
    /// @param reserve1 Reported reserve of token1.
    function setReserves(uint112 reserve0, uint112 reserve1) external {
        _reserve0 = reserve0;
        _reserve1 = reserve1;
    }

    /// @notice The reserves it was told.
    /// @return reserve0 Reported reserve of token0.
    /// @return reserve1 Reported reserve of token1.
    /// @return blockTimestampLast Always zero.
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast) {
        return (_reserve0, _reserve1, 0);
    }

    /// @notice Pays nothing.
    function swap(uint256, uint256, address, bytes calldata) external {} // solhint-disable-line no-empty-blocks
}
