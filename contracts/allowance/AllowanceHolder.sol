// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {ITakerSwapRouter} from "../interfaces/ITakerSwapRouter.sol";

/// @title AllowanceHolder
/// @notice Holds takers' ERC20 approvals and lends them to a router for the duration of a single call.
/// @dev Transient allowances emit no events: nothing about them outlives the transaction, and the
/// router's SwapSettled event records the fill. The holder has no owner and no stored state.
contract AllowanceHolder is IAllowanceHolder {
    using SafeERC20 for IERC20;

    /// @inheritdoc IAllowanceHolder
    function exec(address operator, bytes calldata data) external payable returns (bytes memory result) {
        (address token, uint256 amount) = _orderOf(data);
        bytes32 slot = _slot(operator, msg.sender, token);
        assembly ("memory-safe") {
            tstore(slot, amount)
        }
        bool success;
        (success, result) = operator.call{value: msg.value}(bytes.concat(data, bytes20(msg.sender)));
        assembly ("memory-safe") {
            tstore(slot, 0)
        }
        if (!success) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
    }

    /// @inheritdoc IAllowanceHolder
    function transferFrom(address token, address owner, address recipient, uint256 amount) external {
        bytes32 slot = _slot(msg.sender, owner, token);
        uint256 available;
        assembly ("memory-safe") {
            available := tload(slot)
        }
        if (available < amount) {
            revert AllowanceHolderInsufficientAllowance(msg.sender, owner, token, available, amount);
        }
        assembly ("memory-safe") {
            tstore(slot, sub(available, amount))
        }
        IERC20(token).safeTransferFrom(owner, recipient, amount);
    }

    /// @inheritdoc IAllowanceHolder
    function allowance(address operator, address owner, address token) external view returns (uint256 available) {
        bytes32 slot = _slot(operator, owner, token);
        assembly ("memory-safe") {
            available := tload(slot)
        }
    }

    /// @dev The sell token and amount of the `swapWithAllowance(SwapParams)` call in `data`: the first
    /// two words of the struct its single argument points at.
    function _orderOf(bytes calldata data) private pure returns (address token, uint256 amount) {
        if (data.length < 4 || bytes4(data) != ITakerSwapRouter.swapWithAllowance.selector) {
            revert AllowanceHolderUnsupportedCall(data.length < 4 ? bytes4(0) : bytes4(data));
        }
        if (data.length < 4 + 64) revert AllowanceHolderMalformedCall();
        uint256 structOffset;
        assembly ("memory-safe") {
            structOffset := calldataload(add(data.offset, 4))
        }
        if (structOffset > data.length - 4 - 64) revert AllowanceHolderMalformedCall();
        uint256 rawToken;
        assembly ("memory-safe") {
            let start := add(add(data.offset, 4), structOffset)
            rawToken := calldataload(start)
            amount := calldataload(add(start, 32))
        }
        if (rawToken > type(uint160).max) revert AllowanceHolderMalformedCall();
        token = address(uint160(rawToken));
    }

    function _slot(address operator, address owner, address token) private pure returns (bytes32 slot) {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, operator)
            mstore(add(ptr, 0x20), owner)
            mstore(add(ptr, 0x40), token)
            slot := keccak256(ptr, 0x60)
        }
    }
}
