// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {ITakerExactOutputRouter} from "../interfaces/ITakerExactOutputRouter.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {OrderWitnessHash} from "../libraries/OrderWitnessHash.sol";
import {ExactOutputExecutor} from "./ExactOutputExecutor.sol";
import {TakerSwapSettlement} from "./TakerSwapSettlement.sol";
import {UniswapV3Hops} from "./venues/UniswapV3Hops.sol";

/// @title TakerExactOutputSettlement
/// @notice Feature-2 settlement with exact output: TakerSwapSettlement's exact-input swaps, plus
/// exact-output swaps in each of its settlements (see ITakerExactOutputRouter). TakerSwapRouterV2 and
/// TakerSwapRouterV3 are built on it.
abstract contract TakerExactOutputSettlement is ITakerExactOutputRouter, TakerSwapSettlement, ExactOutputExecutor {
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
    ) TakerSwapSettlement(permit2_, allowanceHolder_, weth_, registry_, venue) {}

    /// @dev ExactOutputExecutor's: pays a V3 pool of an exact-output route run backwards (named here
    /// because the exact-input bases reach UniswapV3Hops' refusal by another path).
    function _v3ExactOutputCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data)
        internal
        override(UniswapV3Hops, ExactOutputExecutor)
    {
        super._v3ExactOutputCallback(amount0Delta, amount1Delta, data);
    }

    /// @inheritdoc ITakerExactOutputRouter
    function swapExactOutputWithPermit(ExactOutputParams calldata params, uint256 nonce, bytes calldata signature)
        external
        settles
        returns (uint256 sellAmount, uint256 buyAmount)
    {
        (address sellToken, bytes calldata actions, ExactOutputPlan memory plan) = _checkExactOutputOrder(params);
        _checkSignatureLength(signature);
        if (sellToken == NATIVE) revert SwapNativeSellNeedsValue();
        address destination = _exactOutputDestination(actions, plan);
        sellAmount = plan.amountIn;
        // The taker signed the maximum; only the needed input is requested, so the rest stays with them.
        permit2.permitWitnessTransferFrom(
            ISignatureTransfer.PermitTransferFrom({
                permitted: ISignatureTransfer.TokenPermissions({token: sellToken, amount: params.maxSellAmount}),
                nonce: nonce,
                deadline: params.deadline
            }),
            ISignatureTransfer.SignatureTransferDetails({to: destination, requestedAmount: sellAmount}),
            msg.sender,
            OrderWitnessHash.hash(OrderWitnessHash.exactOutput(), _asSwapParams(params)),
            OrderWitnessHash.EXACT_OUTPUT_WITNESS_TYPE_STRING,
            signature
        );
        (sellAmount, buyAmount) = _settleExactOutput(params, actions, plan, msg.sender, sellToken, destination);
    }

    /// @inheritdoc ITakerExactOutputRouter
    function swapExactOutputWithAllowance(ExactOutputParams calldata params)
        external
        settles
        returns (uint256 sellAmount, uint256 buyAmount)
    {
        if (msg.sender != address(_allowanceHolder)) revert SwapOnlyAllowanceHolder(msg.sender);
        (address sellToken, bytes calldata actions, ExactOutputPlan memory plan) = _checkExactOutputOrder(params);
        // The holder appends the address of the taker who called it (as for `swapWithAllowance`).
        address taker;
        assembly ("memory-safe") {
            taker := shr(96, calldataload(sub(calldatasize(), 20)))
        }
        address destination = _exactOutputDestination(actions, plan);
        sellAmount = plan.amountIn;
        // The holder's transient allowance is the order's maxSellAmount; only the needed input is drawn.
        _allowanceHolder.transferFrom(sellToken, taker, destination, sellAmount);
        (sellAmount, buyAmount) = _settleExactOutput(params, actions, plan, taker, sellToken, destination);
    }

    /// @inheritdoc ITakerExactOutputRouter
    function swapExactOutputNative(ExactOutputParams calldata params)
        external
        payable
        settles
        returns (uint256 sellAmount, uint256 buyAmount)
    {
        (address sellToken, bytes calldata actions, ExactOutputPlan memory plan) = _checkExactOutputOrder(params);
        if (sellToken != NATIVE) revert SwapUnexpectedToken(NATIVE, sellToken);
        if (msg.value != params.maxSellAmount) revert SwapNativeValueMismatch(params.maxSellAmount, msg.value);
        sellAmount = plan.amountIn;
        (sellAmount, buyAmount) = _settleExactOutput(params, actions, plan, msg.sender, NATIVE, address(this));
        // Checked against the maximum above, so this cannot wrap. Paid like any native payout: a
        // taker contract that refuses ETH gets WETH.
        uint256 refund = msg.value - sellAmount;
        if (refund != 0) {
            emit SwapInputRefunded(params.quoteId, msg.sender, NATIVE, refund);
            _pay(NATIVE, msg.sender, refund);
        }
    }
}
