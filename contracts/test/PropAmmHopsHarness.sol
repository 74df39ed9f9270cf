// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {RouteActions} from "../libraries/RouteActions.sol";
import {PropAmmHops} from "../routers/PropAmmHops.sol";
import {RouterFunds} from "../routers/RouterFunds.sol";
import {PropAmmAllowlist} from "../registry/PropAmmAllowlist.sol";

/// @title PropAmmHopsHarness
/// @notice Test-only router shell around PropAmmHops: it runs routes made only of SWAP_PROPAMM
/// actions, under the same re-entrancy lock as the routers' entry points. Never deployed by the devnet.
contract PropAmmHopsHarness is PropAmmHops {
    using SafeERC20 for IERC20;

    uint8 private constant SWAP_PROPAMM = 0x07;
    uint256 private constant MAX_HOPS = 3;

    /// @param weth_ Wrapped ether (RouterFunds needs it; unused here).
    /// @param registry_ The registry whose administrator may rescue.
    /// @param allowlist The propAMM allowlist.
    constructor(IWETH9 weth_, IRouterRegistry registry_, PropAmmAllowlist allowlist)
        RouterFunds(weth_, registry_, 0)
        PropAmmHops(allowlist)
    {}

    /// @notice Pulls `amountIn` of `tokenIn` from the caller and runs `actions` (1-3 SWAP_PROPAMM hops):
    /// every hop but the last pays this contract, the last pays `to`.
    /// @param actions The packed hops.
    /// @param tokenIn The sold token.
    /// @param amountIn The sold amount.
    /// @param to Who receives the last hop's output.
    /// @return tokenOut The last hop's output token.
    /// @return amountOut What `to` received from the last hop.
    function swap(bytes calldata actions, address tokenIn, uint256 amountIn, address to)
        external
        locked
        returns (address tokenOut, uint256 amountOut)
    {
        uint256 hops = actions.length / RouteActions.SWAP_PROPAMM_WIDTH;
        if (hops == 0 || hops > MAX_HOPS || actions.length % RouteActions.SWAP_PROPAMM_WIDTH != 0) revert SwapTruncatedAction(0);
        IERC20(tokenIn).safeTransferFrom(msg.sender, address(this), amountIn);
        (tokenOut, amountOut) = (tokenIn, amountIn);
        for (uint256 hop; hop < hops; ++hop) {
            uint256 offset = hop * RouteActions.SWAP_PROPAMM_WIDTH;
            if (uint8(actions[offset]) != SWAP_PROPAMM) revert SwapUnknownAction(uint8(actions[offset]), offset);
            (tokenOut, amountOut) =
                _swapPropAmm(actions, offset, tokenOut, amountOut, hop + 1 == hops ? to : address(this));
        }
    }

    /// @dev No venue here pays native ETH out.
    function _nativePayer() internal pure override returns (address) {
        return address(0);
    }
}
