// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {ITakerSwapRouter} from "../interfaces/ITakerSwapRouter.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {SwapWitnessHash} from "../libraries/SwapWitnessHash.sol";
import {RouteExecutor} from "./RouteExecutor.sol";

/// @title TakerSwapRouter
/// @notice Feature-2 router: the taker's wallet sends the swap transaction itself.
contract TakerSwapRouter is ITakerSwapRouter, RouteExecutor {
    /// @notice Uniswap's Permit2.
    ISignatureTransfer public immutable permit2;
    IAllowanceHolder private immutable _allowanceHolder;

    /// @param permit2_ Permit2.
    /// @param allowanceHolder_ The allowance holder takers approve for allowance settlement.
    /// @param weth_ Wrapped ether.
    constructor(ISignatureTransfer permit2_, IAllowanceHolder allowanceHolder_, IWETH9 weth_) RouteExecutor(weth_) {
        if (address(permit2_) == address(0) || address(allowanceHolder_) == address(0)) revert SwapZeroAddress();
        permit2 = permit2_;
        _allowanceHolder = allowanceHolder_;
    }

    /// @inheritdoc ITakerSwapRouter
    function allowanceHolder() external view returns (address) {
        return address(_allowanceHolder);
    }

    /// @inheritdoc ITakerSwapRouter
    function swapWithPermit(SwapParams calldata params, uint256 nonce, bytes calldata signature)
        external
        returns (uint256 buyAmount)
    {
        _checkOrder(params);
        _checkSignatureLength(signature);
        if (params.sellToken == NATIVE) revert SwapNativeSellNeedsValue();
        address destination = _inputDestination(params.actions);
        permit2.permitWitnessTransferFrom(
            ISignatureTransfer.PermitTransferFrom({
                permitted: ISignatureTransfer.TokenPermissions({token: params.sellToken, amount: params.sellAmount}),
                nonce: nonce,
                deadline: params.deadline
            }),
            ISignatureTransfer.SignatureTransferDetails({to: destination, requestedAmount: params.sellAmount}),
            msg.sender,
            SwapWitnessHash.hashSwapWitness(params),
            SwapWitnessHash.SWAP_WITNESS_TYPE_STRING,
            signature
        );
        buyAmount = _executeAndSettle(params, msg.sender, params.sellToken, params.sellAmount, destination);
    }

    /// @inheritdoc ITakerSwapRouter
    function swapWithAllowance(SwapParams calldata params) external payable returns (uint256 buyAmount) {
        if (msg.sender != address(_allowanceHolder)) revert SwapOnlyAllowanceHolder(msg.sender);
        if (msg.value != 0) revert SwapNativeValueMismatch(0, msg.value);
        _checkOrder(params);
        if (params.sellToken == NATIVE) revert SwapNativeSellNeedsValue();
        // The holder appends the address of the taker who called it.
        address taker = address(bytes20(msg.data[msg.data.length - 20:]));
        address destination = _inputDestination(params.actions);
        _pullFromHolder(params.sellToken, taker, destination, params.sellAmount);
        buyAmount = _executeAndSettle(params, taker, params.sellToken, params.sellAmount, destination);
    }

    /// @inheritdoc ITakerSwapRouter
    function swapNative(SwapParams calldata params) external payable returns (uint256 buyAmount) {
        _checkOrder(params);
        if (params.sellToken != NATIVE) revert SwapUnexpectedToken(NATIVE, params.sellToken);
        if (msg.value != params.sellAmount) revert SwapNativeValueMismatch(params.sellAmount, msg.value);
        buyAmount = _executeAndSettle(params, msg.sender, NATIVE, msg.value, address(this));
    }

    /// @dev `allowanceHolder.transferFrom(token, owner, to, amount)` encoded by hand: it is on the hot
    /// path of every allowance swap, and the holder is known to be a contract.
    function _pullFromHolder(address token, address owner, address to, uint256 amount) private {
        IAllowanceHolder holder = _allowanceHolder;
        bytes4 selector = IAllowanceHolder.transferFrom.selector;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 0x04), token)
            mstore(add(ptr, 0x24), owner)
            mstore(add(ptr, 0x44), to)
            mstore(add(ptr, 0x64), amount)
            if iszero(call(gas(), holder, 0, ptr, 0x84, 0, 0)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
        }
    }
}
