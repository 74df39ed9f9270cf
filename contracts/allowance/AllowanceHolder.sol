// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {ITakerExactOutputRouter} from "../interfaces/ITakerExactOutputRouter.sol";
import {ITakerSwapRouter} from "../interfaces/ITakerSwapRouter.sol";

/// @title AllowanceHolder
/// @notice Holds takers' ERC20 approvals and spends them only on the order in the taker's own call.
/// @dev No owner, no storage, no events: the router's SwapSettled records the fill. Venue-agnostic: where
/// a route takes its input is the router's to say (`ITakerSwapRouter.inputDestination`). An exact-output
/// call's allowance lives in transient storage for the duration of that `exec` only.
contract AllowanceHolder is IAllowanceHolder {
    using SafeERC20 for IERC20;

    /// @dev The exact-output call in progress: its operator, taker, sell token and what it may still draw.
    address private transient _operator;
    address private transient _owner;
    address private transient _token;
    uint256 private transient _remaining;

    /// @inheritdoc IAllowanceHolder
    function exec(address operator, bytes calldata data) external returns (bytes memory) {
        bool exactOutput = data.length >= 4 && bytes4(data) == ITakerExactOutputRouter.swapExactOutputWithAllowance.selector;
        if (exactOutput) {
            if (_operator != address(0)) revert AllowanceHolderReentrantExec();
            (address token, uint256 maxAmount,) = _readOrder(data);
            (_operator, _owner, _token, _remaining) = (operator, msg.sender, token, maxAmount);
        } else {
            (address token, uint256 amount, address destination) = orderOf(operator, data);
            // The caller's own tokens, exactly the order's amount, to where the router will look for them.
            IERC20(token).safeTransferFrom(msg.sender, destination, amount);
        }
        uint256 ptr;
        assembly ("memory-safe") {
            // data ++ msg.sender, built once in free memory; no value: the entry points are not payable.
            ptr := mload(0x40)
            calldatacopy(ptr, data.offset, data.length)
            mstore(add(ptr, data.length), shl(96, caller()))
            if iszero(call(gas(), operator, 0, ptr, add(data.length, 20), 0, 0)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
        }
        if (exactOutput) (_operator, _owner, _token, _remaining) = (address(0), address(0), address(0), 0);
        assembly ("memory-safe") {
            // Return `bytes result` ABI-encoded straight from the return data, without a second copy.
            mstore(ptr, 0x20)
            mstore(add(ptr, 0x20), returndatasize())
            returndatacopy(add(ptr, 0x40), 0, returndatasize())
            mstore(add(add(ptr, 0x40), returndatasize()), 0)
            return(ptr, add(0x40, and(add(returndatasize(), 31), not(31))))
        }
    }

    /// @inheritdoc IAllowanceHolder
    function transferFrom(address token, address owner, address to, uint256 amount) external {
        if (msg.sender != _operator || owner != _owner || token != _token) {
            revert AllowanceHolderNoAllowance(msg.sender, owner, token);
        }
        uint256 remaining = _remaining;
        if (amount > remaining) revert AllowanceHolderAllowanceExceeded(amount, remaining);
        _remaining = remaining - amount;
        IERC20(token).safeTransferFrom(owner, to, amount);
    }

    /// @inheritdoc IAllowanceHolder
    function orderOf(address operator, bytes calldata data)
        public
        view
        returns (address token, uint256 amount, address destination)
    {
        if (data.length < 4 || bytes4(data) != ITakerSwapRouter.swapWithAllowance.selector) {
            revert AllowanceHolderUnsupportedCall(data.length < 4 ? bytes4(0) : bytes4(data));
        }
        bytes calldata actions;
        (token, amount, actions) = _readOrder(data);
        // The router says where its route takes its input, from the very bytes it will run: the holder
        // knows no route format, so a new venue never needs a new holder (nor takers' new approvals).
        destination = ITakerSwapRouter(operator).inputDestination(actions);
    }

    /// @dev The sell token, amount and route of the order in `data`, a call whose one argument is a
    /// SwapParams or an ExactOutputParams (the same layout), whatever its selector.
    function _readOrder(bytes calldata data)
        private
        pure
        returns (address token, uint256 amount, bytes calldata actions)
    {
        // Every word read must lie inside `data` itself, never in the 20 bytes appended for the
        // router, so the router's ABI decoder reads exactly the bytes checked here. Each bound is
        // checked before it is used in a subtraction, so nothing wraps (hence `unchecked`).
        uint256 size;
        unchecked {
            size = data.length - 4;
        }
        uint256 structOffset;
        assembly ("memory-safe") {
            structOffset := calldataload(add(data.offset, 4))
        }
        // The struct head: 7 static words and the offset of `actions`.
        if (size < 0x100 || structOffset > size - 0x100) revert AllowanceHolderMalformedCall();
        uint256 rawToken;
        uint256 actionsOffset;
        uint256 structStart;
        assembly ("memory-safe") {
            structStart := add(add(data.offset, 4), structOffset)
            rawToken := calldataload(structStart)
            amount := calldataload(add(structStart, 0x20))
            actionsOffset := calldataload(add(structStart, 0xe0))
        }
        if (rawToken > type(uint160).max) revert AllowanceHolderMalformedCall();
        token = address(uint160(rawToken));
        uint256 afterStruct;
        unchecked {
            afterStruct = size - structOffset; // >= 0x100 by the check above
        }
        actions = _actionsOf(structStart, afterStruct, actionsOffset);
    }

    /// @dev The route's `actions` bytes, whose length word and bytes must fit in the `afterStruct`
    /// bytes of `data` that follow the struct's start.
    function _actionsOf(uint256 structStart, uint256 afterStruct, uint256 actionsOffset)
        private
        pure
        returns (bytes calldata actions)
    {
        uint256 actionsRoom;
        unchecked {
            actionsRoom = afterStruct - 0x20;
        }
        if (actionsOffset > actionsRoom) revert AllowanceHolderMalformedCall();
        uint256 actionsLength;
        assembly ("memory-safe") {
            actionsLength := calldataload(add(structStart, actionsOffset))
        }
        uint256 actionsFit;
        unchecked {
            actionsFit = actionsRoom - actionsOffset;
        }
        if (actionsLength > actionsFit) revert AllowanceHolderMalformedCall();
        assembly ("memory-safe") {
            actions.offset := add(add(structStart, actionsOffset), 0x20)
            actions.length := actionsLength
        }
    }
}
