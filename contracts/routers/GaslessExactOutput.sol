// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IGaslessExactOutputRouter} from "../interfaces/IGaslessExactOutputRouter.sol";
import {OrderWitnessHash} from "../libraries/OrderWitnessHash.sol";
import {ExactOutputExecutor} from "./ExactOutputExecutor.sol";
import {GaslessSwapSettlement} from "./GaslessSwapSettlement.sol";
import {UniswapV3Hops} from "./venues/UniswapV3Hops.sol";

/// @title GaslessExactOutput
/// @notice Gasless exact-output swaps (IGaslessExactOutputRouter), for a feature-3 router version to
/// inherit next to GaslessSwapRouter's exact-input `swapGasless`.
abstract contract GaslessExactOutput is IGaslessExactOutputRouter, GaslessSwapSettlement, ExactOutputExecutor {
    using SafeERC20 for IERC20;

    /// @dev ExactOutputExecutor's: pays a V3 pool of an exact-output route run backwards (named here
    /// because the exact-input bases reach UniswapV3Hops' refusal by another path).
    function _v3ExactOutputCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data)
        internal
        virtual
        override(UniswapV3Hops, ExactOutputExecutor)
    {
        super._v3ExactOutputCallback(amount0Delta, amount1Delta, data);
    }

    /// @inheritdoc IGaslessExactOutputRouter
    function swapGaslessExactOutput(
        ExactOutputParams calldata params,
        address taker,
        uint256 relayerFee,
        address relayerFeeRecipient,
        uint256 nonce,
        bytes calldata signature
    ) external settles returns (uint256 sellAmount, uint256 buyAmount) {
        (address sellToken, bytes calldata actions, ExactOutputPlan memory plan) = _checkExactOutputOrder(params);
        _checkSignatureLength(signature);
        if (sellToken == NATIVE) revert SwapNativeSellNotGasless();
        if (relayerFee != 0 && relayerFeeRecipient == address(0)) revert SwapZeroAddress();
        sellAmount = plan.amountIn;
        // One signed transfer into the router: the input the route needs plus the fee, of a permit
        // for the maximum plus the fee.
        permit2.permitWitnessTransferFrom(
            ISignatureTransfer.PermitTransferFrom({
                permitted: ISignatureTransfer.TokenPermissions({
                    token: sellToken,
                    amount: params.maxSellAmount + relayerFee
                }),
                nonce: nonce,
                deadline: params.deadline
            }),
            ISignatureTransfer.SignatureTransferDetails({to: address(this), requestedAmount: sellAmount + relayerFee}),
            taker,
            OrderWitnessHash.hashGasless(OrderWitnessHash.gaslessExactOutput(), _asSwapParams(params), relayerFee, relayerFeeRecipient),
            OrderWitnessHash.GASLESS_EXACT_OUTPUT_WITNESS_TYPE_STRING,
            signature
        );
        if (relayerFee != 0) {
            IERC20(sellToken).safeTransfer(relayerFeeRecipient, relayerFee);
            emit RelayerFeePaid(params.quoteId, relayerFeeRecipient, msg.sender, sellToken, relayerFee);
        }
        address destination = _exactOutputDestination(actions, plan);
        if (destination != address(this)) IERC20(sellToken).safeTransfer(destination, sellAmount);
        (sellAmount, buyAmount) = _settleExactOutput(params, actions, plan, taker, sellToken, destination);
    }
}
