// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {ITakerSwapRouter} from "../interfaces/ITakerSwapRouter.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {OrderWitnessHash} from "../libraries/OrderWitnessHash.sol";
import {RouteExecutor} from "./RouteExecutor.sol";

/// @title TakerSwapSettlement
/// @notice Feature-2 settlement: the taker's wallet sends the swap transaction itself. Every feature-2
/// router version (TakerSwapRouter, TakerSwapRouterV2, TakerSwapRouterV3) is built on it; the concrete
/// version names its V3 venues (UniswapV3Hops' constructor).
abstract contract TakerSwapSettlement is ITakerSwapRouter, RouteExecutor {
    /// @notice The registry feature of taker-submitted swaps.
    uint128 public constant FEATURE_ID = 2;

    /// @notice Uniswap's Permit2.
    ISignatureTransfer public immutable permit2;
    IAllowanceHolder internal immutable _allowanceHolder;

    /// @param permit2_ Permit2.
    /// @param allowanceHolder_ The allowance holder takers approve for allowance settlement.
    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose feature-2 status gates this router.
    /// @param venue The V2 factory whose pairs routes may use, and its pool fee.
    constructor(
        ISignatureTransfer permit2_,
        IAllowanceHolder allowanceHolder_,
        IWETH9 weth_,
        IRouterRegistry registry_,
        V2Venue memory venue
    ) RouteExecutor(weth_, registry_, FEATURE_ID, venue) {
        if (address(permit2_) == address(0) || address(allowanceHolder_) == address(0)) revert SwapZeroAddress();
        permit2 = permit2_;
        _allowanceHolder = allowanceHolder_;
    }

    /// @inheritdoc ITakerSwapRouter
    function allowanceHolder() external view returns (address) {
        return address(_allowanceHolder);
    }

    /// @inheritdoc ITakerSwapRouter
    function inputDestination(bytes calldata actions) external view returns (address) {
        return _inputDestination(actions);
    }

    /// @inheritdoc ITakerSwapRouter
    function swapWithPermit(SwapParams calldata params, uint256 nonce, bytes calldata signature)
        external
        settles
        returns (uint256 buyAmount)
    {
        (address sellToken, uint256 sellAmount, bytes calldata actions) = _checkOrder(params);
        _checkSignatureLength(signature);
        if (sellToken == NATIVE) revert SwapNativeSellNeedsValue();
        address destination = _inputDestination(actions);
        if (destination == address(this)) destination = _signedSellDestination(actions, sellToken);
        permit2.permitWitnessTransferFrom(
            ISignatureTransfer.PermitTransferFrom({
                permitted: ISignatureTransfer.TokenPermissions({token: sellToken, amount: sellAmount}),
                nonce: nonce,
                deadline: params.deadline
            }),
            ISignatureTransfer.SignatureTransferDetails({to: destination, requestedAmount: sellAmount}),
            msg.sender,
            OrderWitnessHash.hash(OrderWitnessHash.exactInput(), params),
            OrderWitnessHash.SWAP_WITNESS_TYPE_STRING,
            signature
        );
        buyAmount = _executeAndSettle(params, actions, msg.sender, sellToken, sellAmount, destination);
    }

    /// @inheritdoc ITakerSwapRouter
    function swapWithAllowance(SwapParams calldata params) external settles returns (uint256 buyAmount) {
        if (msg.sender != address(_allowanceHolder)) revert SwapOnlyAllowanceHolder(msg.sender);
        // A native sell cannot arrive here: the holder's transferFrom on the native placeholder (no
        // code) reverts before this call is made.
        (address sellToken, uint256 sellAmount, bytes calldata actions) = _checkOrder(params);
        // The holder appends the address of the taker who called it, and has already delivered the
        // order's sell amount to the route's input, which it finds by the same rule as
        // `_inputDestination` from the same bytes.
        address taker;
        assembly ("memory-safe") {
            taker := shr(96, calldataload(sub(calldatasize(), 20)))
        }
        address destination = _inputDestination(actions);
        buyAmount = _executeAndSettle(params, actions, taker, sellToken, sellAmount, destination);
    }

    /// @inheritdoc ITakerSwapRouter
    function swapNative(SwapParams calldata params) external payable settles returns (uint256 buyAmount) {
        (address sellToken, uint256 sellAmount, bytes calldata actions) = _checkOrder(params);
        if (sellToken != NATIVE) revert SwapUnexpectedToken(NATIVE, sellToken);
        if (msg.value != sellAmount) revert SwapNativeValueMismatch(sellAmount, msg.value);
        buyAmount = _executeAndSettle(params, actions, msg.sender, NATIVE, sellAmount, address(this));
    }
}
