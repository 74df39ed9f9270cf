// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice Wrapped ether, as deployed from Uniswap's WETH9 artifact.
interface IWETH9 is IERC20 {
    /// @notice Wraps `msg.value`.
    function deposit() external payable;

    /// @notice Unwraps `amount` to the caller.
    function withdraw(uint256 amount) external;
}
