// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IExactOutputSettlement} from "../interfaces/IExactOutputSettlement.sol";
import {RouteActions} from "../libraries/RouteActions.sol";
import {V2SwapMath} from "../libraries/V2SwapMath.sol";
import {RouteExecutor} from "./RouteExecutor.sol";

/// @title ExactOutputExecutor
/// @notice Prices an exact-output order's route backwards from the pools' reserves, then runs it
/// forwards with exactly that input (RouteExecutor's own actions), and settles.
/// @dev Routers of both features inherit it next to their exact-input entry points; how the input
/// arrives (Permit2, the allowance holder, ETH, a relayed signature) stays in each entry point.
abstract contract ExactOutputExecutor is IExactOutputSettlement, RouteExecutor {
    /// @dev What the backward pass found: the input the route needs and, for a route with a SPLIT,
    /// where the split is (`splitEnd` is zero without one) and each leg's input.
    struct ExactOutputPlan {
        uint256 amountIn;
        uint256 splitOffset;
        uint256 splitEnd;
        uint256[3] legIns;
    }

    /// @dev `params` read as the SwapParams it is laid out like (IExactOutputSettlement), so the
    /// exact-input checks and field reads apply unchanged.
    function _asSwapParams(ExactOutputParams calldata params) internal pure returns (SwapParams calldata swapParams) {
        assembly ("memory-safe") {
            swapParams := params
        }
    }

    /// @dev Checks shared by every exact-output entry point, before any token moves: the exact-input
    /// checks (deadline, recipient), then the route priced backwards, whose input must not exceed the
    /// signed maximum.
    function _checkExactOutputOrder(ExactOutputParams calldata params)
        internal
        view
        returns (address sellToken, bytes calldata actions, ExactOutputPlan memory plan)
    {
        uint256 maxSellAmount;
        (sellToken, maxSellAmount, actions) = _checkOrder(_asSwapParams(params));
        plan = _planExactOutput(actions, sellToken, params.buyAmount);
        if (plan.amountIn > maxSellAmount) revert SwapExcessiveInput(plan.amountIn, maxSellAmount);
    }

    /// @dev The input `actions` need, starting from `sellToken`, to end with at least `buyAmount`,
    /// priced from the last action to the first.
    function _planExactOutput(bytes calldata actions, address sellToken, uint256 buyAmount)
        internal
        view
        returns (ExactOutputPlan memory plan)
    {
        (uint256[8] memory offsets, address[8] memory tokensIn, uint256 count) = _routeShape(actions, sellToken, plan);
        uint256 amount = buyAmount;
        while (count != 0) {
            --count;
            uint256 offset = offsets[count];
            uint8 opcode = RouteActions.opcodeAtInBounds(actions, offset);
            if (opcode == RouteActions.SWAP_V2) {
                amount = _hopAmountIn(actions, offset, tokensIn[count], amount);
            } else if (opcode == RouteActions.SPLIT) {
                amount = _splitAmountIn(actions, offset, tokensIn[count], amount, plan.legIns);
            } else if (opcode == RouteActions.FEE) {
                (uint256 bps,) = RouteActions.decodeFee(actions, offset);
                // The forward FEE takes floor(gross * bps / BPS): the gross rounded up leaves at least `amount`.
                if (bps >= V2SwapMath.BPS) revert SwapFeeTooHigh(bps);
                amount = (amount * V2SwapMath.BPS + (V2SwapMath.BPS - bps - 1)) / (V2SwapMath.BPS - bps);
            }
            // WRAP and UNWRAP are one for one.
        }
        plan.amountIn = amount;
    }

    /// @dev A forward pass over the route: each action's offset and input token (at most MAX_ACTIONS
    /// of them), the SPLIT's place in `plan`, and the checks of an exact-output route's shape.
    function _routeShape(bytes calldata actions, address sellToken, ExactOutputPlan memory plan)
        private
        view
        returns (uint256[8] memory offsets, address[8] memory tokensIn, uint256 count)
    {
        address token = sellToken;
        bool swaps;
        uint256 offset;
        while (offset < actions.length) {
            uint8 opcode = RouteActions.opcodeAtInBounds(actions, offset);
            uint256 width = RouteActions.width(opcode);
            if (width == 0) {
                if (opcode != RouteActions.SPLIT) revert SwapUnknownAction(opcode, offset);
                width = RouteActions.splitWidth(actions, offset);
            }
            if (count == MAX_ACTIONS) revert SwapTooManyActions(MAX_ACTIONS);
            uint256 nextOffset = offset + width;
            if (nextOffset > actions.length) revert SwapTruncatedAction(offset);
            (offsets[count], tokensIn[count]) = (offset, token);
            ++count;
            if (opcode == RouteActions.SWAP_V2) {
                (, token,) = RouteActions.decodeSwapV2(actions, offset);
                swaps = true;
            } else if (RouteActions.swapWidth(opcode) != 0) {
                // Exact output is priced backwards from V2 reserves; other venues are exact-input only.
                revert SwapExactOutputRoute(offset);
            } else if (opcode == RouteActions.SPLIT) {
                if (plan.splitEnd != 0) revert SwapExactOutputRoute(offset);
                (plan.splitOffset, plan.splitEnd) = (offset, nextOffset);
                token = RouteActions.splitTokenOut(actions, offset);
            } else if (opcode == RouteActions.WRAP) {
                token = address(weth);
            } else if (opcode == RouteActions.UNWRAP) {
                token = NATIVE;
            }
            offset = nextOffset;
        }
        // With a SPLIT: no other swap, and before it at most a WRAP.
        if (plan.splitEnd != 0) {
            if (swaps || plan.splitOffset > 1) revert SwapExactOutputRoute(plan.splitOffset);
            if (plan.splitOffset == 1 && RouteActions.opcodeAtInBounds(actions, 0) != RouteActions.WRAP) {
                revert SwapExactOutputRoute(0);
            }
        }
    }

    /// @dev The input one hop needs to pay out `amountOut`, checked as the forward pass checks it.
    function _hopAmountIn(bytes calldata actions, uint256 offset, address tokenIn, uint256 amountOut)
        private
        view
        returns (uint256)
    {
        (address pair, address tokenOut) = _checkHop(actions, offset, tokenIn);
        (uint256 reserve0, uint256 reserve1) = _reserves(pair);
        return tokenIn < tokenOut
            ? V2SwapMath.getAmountIn(amountOut, reserve0, reserve1, v2FeeBps)
            : V2SwapMath.getAmountIn(amountOut, reserve1, reserve0, v2FeeBps);
    }

    /// @dev The input of the SPLIT at `offset` for `amountOut`: every leg but the last must produce
    /// `amountOut * share / 10000`, the last the rest; each leg's input is written to `legIns`.
    function _splitAmountIn(
        bytes calldata actions,
        uint256 offset,
        address tokenIn,
        uint256 amountOut,
        uint256[3] memory legIns
    ) private view returns (uint256 amountIn) {
        uint256 legs = RouteActions.byteAt(actions, offset + 1);
        uint256 cursor = offset + RouteActions.SPLIT_HEADER_WIDTH;
        uint256 remaining = amountOut;
        for (uint256 leg; leg < legs; ++leg) {
            (uint256 end, uint256 hops) = RouteActions.legEnd(actions, cursor);
            uint256 legOut =
                leg + 1 == legs ? remaining : (amountOut * RouteActions.uint16At(actions, cursor)) / V2SwapMath.BPS;
            remaining -= legOut;
            // A leg whose share of the output rounds to nothing gets nothing (and is not traded).
            if (legOut != 0) {
                uint256 legIn = _legAmountIn(actions, cursor + RouteActions.LEG_HEADER_WIDTH, hops, tokenIn, legOut);
                legIns[leg] = legIn;
                amountIn += legIn;
            }
            cursor = end;
        }
    }

    /// @dev The input of a leg's `hops` hops starting at byte `start` for `amountOut` at its end.
    function _legAmountIn(bytes calldata actions, uint256 start, uint256 hops, address tokenIn, uint256 amountOut)
        private
        view
        returns (uint256 amount)
    {
        address[3] memory tokens; // RouteActions.MAX_LEG_HOPS
        uint256[3] memory offsets;
        address token = tokenIn;
        uint256 at = start;
        for (uint256 hop; hop < hops; ++hop) {
            uint8 opcode = RouteActions.opcodeAtInBounds(actions, at);
            // As outside a split: only V2 hops are priced backwards.
            if (opcode != RouteActions.SWAP_V2) revert SwapExactOutputRoute(at);
            (tokens[hop], offsets[hop]) = (token, at);
            (, token,) = RouteActions.decodeSwapV2(actions, at);
            at += RouteActions.SWAP_V2_WIDTH;
        }
        amount = amountOut;
        for (uint256 hop = hops; hop != 0; --hop) {
            amount = _hopAmountIn(actions, offsets[hop - 1], tokens[hop - 1], amount);
        }
    }

    /// @dev Runs the route on `plan.amountIn` of `tokenIn`, already delivered to `destination` (the
    /// route's `_inputDestination`), pays the recipient at least the signed `buyAmount`, and emits
    /// SwapSettled with the input actually taken. Without a SPLIT the route runs as an exact-input
    /// route of `plan.amountIn`: each hop then pays at least what the backward pass asked of it. With
    /// one, the WRAP before it (if any) runs here, the legs get the inputs the plan gave them and
    /// deliver to this router, and the actions after it run as an exact-input route.
    function _settleExactOutput(
        ExactOutputParams calldata params,
        bytes calldata actions,
        ExactOutputPlan memory plan,
        address taker,
        address tokenIn,
        address destination
    ) internal returns (uint256 buyAmount) {
        SwapParams calldata order = _asSwapParams(params);
        uint256 fee;
        if (plan.splitEnd == 0) {
            (buyAmount, fee) = _runAndPay(order, actions, tokenIn, plan.amountIn, destination != address(this));
        } else {
            address token = tokenIn;
            if (plan.splitOffset != 0) {
                // The plan allows only a WRAP before a SPLIT.
                if (token != NATIVE) revert SwapUnexpectedToken(NATIVE, token);
                _wethCall(0xd0e30db0, plan.amountIn, 0); // deposit()
                token = address(weth);
            }
            uint256 amount;
            (token, amount) = _runSplit(actions, plan, token);
            (buyAmount, fee) = _runAndPay(order, actions[plan.splitEnd:], token, amount, false);
        }
        _emitSwapSettled(
            params.quoteId, taker, params.recipient, tokenIn, plan.amountIn, params.buyToken, buyAmount, fee
        );
    }

    /// @dev The plan's SPLIT, each leg with its planned input, every leg delivering to this router.
    function _runSplit(bytes calldata actions, ExactOutputPlan memory plan, address tokenIn)
        private
        returns (address tokenOut, uint256 amountOut)
    {
        uint256 offset = plan.splitOffset;
        tokenOut = RouteActions.splitTokenOut(actions, offset);
        uint256 legs = RouteActions.byteAt(actions, offset + 1);
        uint256 cursor = offset + RouteActions.SPLIT_HEADER_WIDTH;
        for (uint256 leg; leg < legs; ++leg) {
            address legOut;
            uint256 legAmount;
            (legOut, legAmount, cursor) = _runLeg(actions, cursor, tokenIn, plan.legIns[leg], address(this));
            if (legOut != tokenOut) revert SwapUnexpectedToken(tokenOut, legOut);
            amountOut += legAmount;
        }
    }
}
