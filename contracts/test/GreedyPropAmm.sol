// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPropAmm} from "../interfaces/IPropAmm.sol";

/// @title GreedyPropAmm
/// @notice Test-only propAMM that breaks the standard's promises in the way `mode` says, for the
/// router's security model to be tested against: it pays less than it says, takes less than its
/// input (keeping part of the approval), pays nothing, or calls back into the router.
/// @dev Prices 1:1 from its own inventory. Never deployed by the devnet.
contract GreedyPropAmm is IPropAmm {
    using SafeERC20 for IERC20;

    /// @notice How this venue misbehaves.
    enum Mode {
        Honest,
        ShortPay,
        KeepApproval,
        PayNothing,
        Reenter
    }

    /// @notice The configured token0.
    IERC20 public immutable token0;
    /// @notice The configured token1.
    IERC20 public immutable token1;
    /// @notice The current misbehaviour.
    Mode public mode;
    address private _reentryTarget;
    bytes private _reentryCall;

    /// @notice The misbehaviour changed.
    event ModeSet(Mode mode);

    /// @param token0_ The configured token0.
    /// @param token1_ The configured token1.
    constructor(IERC20 token0_, IERC20 token1_) {
        token0 = token0_;
        token1 = token1_;
    }

    /// @notice Sets the misbehaviour, and for Reenter the call made back into `target`.
    /// @param newMode The misbehaviour.
    /// @param target The contract called during a swap in Reenter mode.
    /// @param data The calldata of that call.
    function setMode(Mode newMode, address target, bytes calldata data) external {
        mode = newMode;
        _reentryTarget = target;
        _reentryCall = data;
        emit ModeSet(newMode);
    }

    /// @notice Pulls `amount` of `token` from `from` with whatever approval is left.
    /// @param token The token.
    /// @param from The approver.
    /// @param amount The amount.
    function pull(IERC20 token, address from, uint256 amount) external {
        token.safeTransferFrom(from, address(this), amount);
    }

    /// @inheritdoc IPropAmm
    function getAmountOut(bool, uint256 amountIn) external pure returns (uint256) {
        return amountIn;
    }

    /// @inheritdoc IPropAmm
    function swapExactIn(bool zeroForOne, uint256 amountIn, uint256, address to, uint256)
        external
        payable
        returns (uint256)
    {
        (IERC20 tokenIn, IERC20 tokenOut) = zeroForOne ? (token0, token1) : (token1, token0);
        Mode current = mode;
        if (current == Mode.Reenter) {
            // solhint-disable-next-line avoid-low-level-calls
            (bool ok, bytes memory returned) = _reentryTarget.call(_reentryCall);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(returned, 0x20), mload(returned))
                }
            }
        }
        uint256 taken = current == Mode.KeepApproval ? amountIn - 1 : amountIn;
        tokenIn.safeTransferFrom(msg.sender, address(this), taken);
        uint256 paid = current == Mode.ShortPay ? amountIn / 2 : current == Mode.PayNothing ? 0 : amountIn;
        if (paid != 0) tokenOut.safeTransfer(to, paid);
        return current == Mode.PayNothing ? 0 : amountIn;
    }
}
