// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title ITransferTaxProbe
/// @notice Measures what a token takes from its own transfers: a buy (the pool pays out), a plain
/// transfer between two holders, and a sell (a holder pays the pool). The probe never keeps state:
/// it is meant to run inside `eth_call` with its code placed at an unused address (a state
/// override), and every measurement ends in a revert carrying the result, so nothing it does can
/// persist even if it were called in a transaction.
/// @dev The probe flash-borrows `amount` of the token from a Uniswap V2 pair: the pair pays it out
/// first and calls `uniswapV2Call`, where the probe forwards half to an unrelated address and the
/// rest back to the pair, measuring each receiver's balance, then reverts with the three taxes.
interface ITransferTaxProbe {
    /// @notice The measurement, in basis points of the amount sent, rounded up: what the probe
    /// received of `amount` from the pair (buy), what a holder received of a transfer (transfer),
    /// and what the pair received of a payment to it (sell). A receiver credited with more than was
    /// sent reads 0.
    error TransferTaxProbeResult(uint256 buyTaxBps, uint256 sellTaxBps, uint256 transferTaxBps);

    /// @notice `uniswapV2Call` was called by `caller`, not by the pair being measured.
    error TransferTaxProbeUnexpectedCaller(address caller, address pair);

    /// @notice Flash-borrows `amount` of `token` from `pair` and always reverts: with
    /// `TransferTaxProbeResult` when the transfers could be made, otherwise with what failed.
    /// @param pair A Uniswap V2 pair holding more than `amount` of `token`.
    /// @param token One of the pair's two tokens.
    /// @param amount How much to borrow; large enough that one basis point of it is at least one unit.
    function measure(address pair, address token, uint256 amount) external;

    /// @notice The pair's flash-swap callback (Uniswap V2's `IUniswapV2Callee`); only the pair being
    /// measured may call it.
    /// @param sender Who called `swap` (the probe).
    /// @param amount0 The amount of token0 paid out.
    /// @param amount1 The amount of token1 paid out.
    /// @param data The encoded (pair, token, amount) of the measurement.
    function uniswapV2Call(address sender, uint256 amount0, uint256 amount1, bytes calldata data) external;
}
