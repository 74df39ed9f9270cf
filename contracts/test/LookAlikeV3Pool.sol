// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IUniswapV3Venue} from "../interfaces/IUniswapV3Venue.sol";

/// @title LookAlikeV3Pool
/// @notice Test-only: a contract that calls a router's `uniswapV3SwapCallback` as a pool would, to claim
/// tokens it was never owed. The router must refuse it: it is not the pool the router computed and is
/// swapping with.
contract LookAlikeV3Pool {
    /// @notice Asks `router` to pay `amount` of `token` to this contract, as a pool's callback would.
    function claim(IUniswapV3Venue router, address token, uint256 amount) external {
        router.uniswapV3SwapCallback(int256(amount), 0, abi.encode(token, amount));
    }
}
