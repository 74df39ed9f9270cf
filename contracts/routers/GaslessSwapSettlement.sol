// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IGaslessSwapRouter} from "../interfaces/IGaslessSwapRouter.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {OrderWitnessHash} from "../libraries/OrderWitnessHash.sol";
import {RouteExecutor} from "./RouteExecutor.sol";

/// @title GaslessSwapSettlement
/// @notice Feature-3 settlement: a relayer submits the taker's signed swap and is paid in the sell token.
/// @dev The base of every feature-3 router version (GaslessSwapRouter, GaslessBatchSwapRouter,
/// GaslessBatchSwapRouterV2); the concrete version names its V3 venues (UniswapV3Hops' constructor).
abstract contract GaslessSwapSettlement is IGaslessSwapRouter, RouteExecutor {
    using SafeERC20 for IERC20;

    /// @notice The registry feature of gasless swaps.
    uint128 public constant FEATURE_ID = 3;

    /// @notice Uniswap's Permit2.
    ISignatureTransfer public immutable permit2;

    /// @param permit2_ Permit2.
    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose feature-3 status gates this router.
    /// @param venue The V2 factory whose pairs routes may use, and its pool fee.
    constructor(ISignatureTransfer permit2_, IWETH9 weth_, IRouterRegistry registry_, V2Venue memory venue)
        RouteExecutor(weth_, registry_, FEATURE_ID, venue)
    {
        if (address(permit2_) == address(0)) revert SwapZeroAddress();
        permit2 = permit2_;
    }

    /// @inheritdoc IGaslessSwapRouter
    function swapGasless(
        SwapParams calldata params,
        address taker,
        uint256 relayerFee,
        address relayerFeeRecipient,
        uint256 nonce,
        bytes calldata signature
    ) external settles returns (uint256 buyAmount) {
        buyAmount = _swapGasless(params, taker, relayerFee, relayerFeeRecipient, nonce, signature, msg.sender);
    }

    /// @dev One signed order, after the gate: `submitter` is who sent the transaction (RelayerFeePaid
    /// names it), which a batch passes on because its own call to each order comes from this router.
    function _swapGasless(
        SwapParams calldata params,
        address taker,
        uint256 relayerFee,
        address relayerFeeRecipient,
        uint256 nonce,
        bytes calldata signature,
        address submitter
    ) internal returns (uint256 buyAmount) {
        (address sellToken, uint256 sellAmount, bytes calldata actions) = _checkOrder(params);
        _checkSignatureLength(signature);
        if (sellToken == NATIVE) revert SwapNativeSellNotGasless();
        if (relayerFee != 0 && relayerFeeRecipient == address(0)) revert SwapZeroAddress();
        // One signed transfer of sell amount plus fee into the router, which then splits it.
        permit2.permitWitnessTransferFrom(
            ISignatureTransfer.PermitTransferFrom({
                permitted: ISignatureTransfer.TokenPermissions({
                    token: sellToken,
                    amount: sellAmount + relayerFee
                }),
                nonce: nonce,
                deadline: params.deadline
            }),
            ISignatureTransfer.SignatureTransferDetails({to: address(this), requestedAmount: sellAmount + relayerFee}),
            taker,
            OrderWitnessHash.hashGasless(OrderWitnessHash.gaslessExactInput(), params, relayerFee, relayerFeeRecipient),
            OrderWitnessHash.GASLESS_WITNESS_TYPE_STRING,
            signature
        );
        if (relayerFee != 0) {
            IERC20(sellToken).safeTransfer(relayerFeeRecipient, relayerFee);
            emit RelayerFeePaid(params.quoteId, relayerFeeRecipient, submitter, sellToken, relayerFee);
        }
        address destination = _inputDestination(actions);
        if (destination != address(this)) IERC20(sellToken).safeTransfer(destination, sellAmount);
        buyAmount = _executeAndSettle(params, actions, taker, sellToken, sellAmount, destination);
    }
}
