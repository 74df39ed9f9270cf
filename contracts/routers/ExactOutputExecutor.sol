// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IExactOutputSettlement} from "../interfaces/IExactOutputSettlement.sol";
import {ExactOutputInput} from "../libraries/ExactOutputInput.sol";
import {RouteActions} from "../libraries/RouteActions.sol";
import {UniswapV4RunMode} from "../libraries/UniswapV4RunMode.sol";
import {V2SwapMath} from "../libraries/V2SwapMath.sol";
import {RouteExecutor} from "./RouteExecutor.sol";

/// @title ExactOutputExecutor
/// @notice Prices an exact-output order's route backwards from the pools' reserves, then runs it
/// forwards with exactly that input (RouteExecutor's own actions), and settles. A route with a SWAP_V3
/// hop cannot be priced without the pool's ticks: it is run backwards instead, each swap an exact-output
/// swap paid for (in a V3 pool's callback, or before a V2 pair's swap) by the swaps before it, the
/// first from the order's input; the unused input goes back to the taker.
/// @dev Routers of both features inherit it next to their exact-input entry points; how the input
/// arrives (Permit2, the allowance holder, ETH, a relayed signature) stays in each entry point.
abstract contract ExactOutputExecutor is IExactOutputSettlement, RouteExecutor {
    /// @dev What the backward pass found: the input the route needs and, for a route with a SPLIT,
    /// where the split is (`splitEnd` is zero without one). A route with a SWAP_V3 hop or a SPLIT
    /// (`backwards`) is run backwards: `amountIn` is then the order's maximum, which the entry point
    /// delivers to this router, `swapStart`/`swapEnd` bound its swaps (or its SPLIT), and `swapOut` is
    /// what they must yield for the actions after them.
    struct ExactOutputPlan {
        uint256 amountIn;
        uint256 splitOffset;
        uint256 splitEnd;
        bool backwards;
        uint256 swapStart;
        uint256 swapEnd;
        uint256 swapOut;
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
        // Run backwards, the route's input is known only as it is paid (at most the maximum, checked then).
        if (plan.backwards) plan.amountIn = maxSellAmount;
        if (plan.amountIn > maxSellAmount) revert SwapExcessiveInput(plan.amountIn, maxSellAmount);
    }

    /// @dev Where an exact-output order's input is delivered: as `_inputDestination` says, except that a
    /// route run backwards takes its whole maximum into this router and pays each first swap from there.
    function _exactOutputDestination(bytes calldata actions, ExactOutputPlan memory plan)
        internal
        view
        returns (address)
    {
        return plan.backwards ? address(this) : _inputDestination(actions);
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
            // Run backwards: the actions after the swaps are priced here, the swaps as they run.
            if (plan.backwards && offset < plan.swapEnd) {
                plan.swapOut = amount;
                return plan;
            }
            uint8 opcode = RouteActions.opcodeAtInBounds(actions, offset);
            if (opcode == RouteActions.SWAP_V2) {
                amount = _hopAmountIn(actions, offset, tokensIn[count], amount);
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
        uint256 gapAt;
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
            if (opcode == RouteActions.SWAP_PROPAMM) {
                // Exact output runs over V2, V3 and V4; propAMMs are exact-input only.
                revert SwapExactOutputRoute(offset);
            } else if (RouteActions.swapWidth(opcode) != 0) {
                token = RouteActions.hopTokenOut(actions, offset);
                swaps = true;
                if (opcode != RouteActions.SWAP_V2) plan.backwards = true;
            } else if (opcode == RouteActions.SPLIT) {
                if (plan.splitEnd != 0) revert SwapExactOutputRoute(offset);
                (plan.splitOffset, plan.splitEnd) = (offset, nextOffset);
                token = RouteActions.splitTokenOut(actions, offset);
                // Its legs' inputs are found as they run (V3 legs cannot be priced beforehand).
                plan.backwards = true;
            } else if (opcode == RouteActions.WRAP) {
                token = address(weth);
            } else if (opcode == RouteActions.UNWRAP) {
                token = NATIVE;
            }
            if (opcode == RouteActions.SPLIT || RouteActions.swapWidth(opcode) != 0) {
                // A swap after other actions that follow a swap: the swaps are not one run.
                if (plan.swapEnd != 0 && plan.swapEnd != offset) gapAt = offset;
                if (plan.swapEnd == 0) plan.swapStart = offset;
                plan.swapEnd = nextOffset;
            }
            offset = nextOffset;
        }
        if (plan.backwards) _checkBackwardsShape(actions, sellToken, plan, gapAt, swaps);
    }

    /// @dev The shape of a route run backwards: its swaps (or its SPLIT, with no other swap beside it)
    /// are one run, before them at most a WRAP of the native sell token, and a SPLIT is the only swap; `gapAt` is a swap found after other actions that follow a swap.
    function _checkBackwardsShape(
        bytes calldata actions,
        address sellToken,
        ExactOutputPlan memory plan,
        uint256 gapAt,
        bool swaps
    ) private pure {
        if (gapAt != 0) revert SwapExactOutputRoute(gapAt);
        if (plan.swapStart > 1) revert SwapExactOutputRoute(plan.swapStart);
        if (plan.swapStart == 1) {
            if (RouteActions.opcodeAtInBounds(actions, 0) != RouteActions.WRAP) revert SwapExactOutputRoute(0);
            // Checked here, before the entry point takes any input.
            if (sellToken != NATIVE) revert SwapUnexpectedToken(NATIVE, sellToken);
        }
        // A SPLIT is the route's only swap. Its legs' hops are checked as they run: a propAMM's is refused.
        if (plan.splitEnd != 0 && swaps) revert SwapExactOutputRoute(plan.splitOffset);
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

    /// @dev Runs the route on `plan.amountIn` of `tokenIn`, already delivered to `destination` (the
    /// route's `_exactOutputDestination`), pays the recipient at least the signed `buyAmount`, and emits
    /// SwapSettled with the input actually taken. A route of V2 swaps runs as an exact-input route of
    /// `plan.amountIn`: each hop then pays at least what the backward pass asked of it. A route run
    /// backwards (`plan.backwards`: a SWAP_V3 or a SPLIT) pays back to `taker` the ERC20 input it did
    /// not use (the entry point refunds ETH). Returns the input used and the output paid.
    function _settleExactOutput(
        ExactOutputParams calldata params,
        bytes calldata actions,
        ExactOutputPlan memory plan,
        address taker,
        address tokenIn,
        address destination
    ) internal returns (uint256 sellAmount, uint256 buyAmount) {
        SwapParams calldata order = _asSwapParams(params);
        uint256 fee;
        sellAmount = plan.amountIn;
        if (plan.backwards) {
            (sellAmount, buyAmount, fee) = _runBackwards(order, actions, plan, tokenIn);
            // At most the maximum (checked as each input was paid), so this cannot wrap.
            uint256 refund = plan.amountIn - sellAmount;
            if (tokenIn != NATIVE && refund != 0) {
                emit SwapInputRefunded(params.quoteId, taker, tokenIn, refund);
                _pay(tokenIn, taker, refund);
            }
        } else {
            (buyAmount, fee) = _runAndPay(order, actions, tokenIn, plan.amountIn, destination != address(this));
        }
        _emitSwapSettled(
            params.quoteId, taker, params.recipient, tokenIn, sellAmount, params.buyToken, buyAmount, fee
        );
    }

    /// @dev A route run backwards: its swaps (or SPLIT) yield `plan.swapOut`, each swap paid for by the
    /// ones before it and the first from this router's `plan.amountIn` of `tokenIn` (ETH wrapped as it is
    /// paid when a WRAP comes first); then the actions after them run forwards. The swaps pay the
    /// recipient directly when nothing follows them and they yield the buy token (measured, as forwards).
    function _runBackwards(SwapParams calldata order, bytes calldata actions, ExactOutputPlan memory plan, address tokenIn)
        private
        returns (uint256 sellAmount, uint256 buyAmount, uint256 fee)
    {
        // `_routeShape` allows only a WRAP of the native sell token before the swaps.
        bool wrapped = plan.swapStart != 0;
        address token = wrapped ? address(weth) : tokenIn;
        ExactOutputInput.begin(plan.amountIn, wrapped);
        // The swaps' output token: the SPLIT's, or the last swap's.
        bytes calldata swaps = actions[plan.swapStart:plan.swapEnd];
        address tokenOut = plan.splitEnd == 0
            ? RouteActions.hopTokenOut(swaps, _previousHop(swaps, swaps.length))
            : RouteActions.splitTokenOut(actions, plan.splitOffset);
        address buyToken = address(uint160(_field(order, 2)));
        address recipient = address(uint160(_field(order, 4)));
        // Native ETH out of a V4 pool is taken here and paid on as the tail pays it (no balance to measure).
        bool direct = plan.swapEnd == actions.length && tokenOut == buyToken && tokenOut != NATIVE;
        address to = direct ? recipient : address(this);
        uint256 before = direct ? _balanceOf(tokenOut, recipient) : 0;
        if (plan.splitEnd == 0) {
            _exactOut(swaps, _previousHop(swaps, swaps.length), token, plan.swapOut, to);
        } else {
            _splitBackwards(actions, plan.splitOffset, token, tokenOut, plan.swapOut, to);
        }
        if (direct) {
            buyAmount = _balanceOf(tokenOut, recipient) - before;
            uint256 minBuyAmount = _field(order, 3);
            if (buyAmount < minBuyAmount) revert SwapInsufficientOutput(buyAmount, minBuyAmount);
        } else {
            // The exact-output part left its output in this router (`to`): nothing is pre-delivered, so
            // the tail's first hop, a SWAP_V2 or SWAP_V4 included, must move it itself (`inPair` false).
            (buyAmount, fee) = _runAndPay(order, actions[plan.swapEnd:], tokenOut, plan.swapOut, false);
        }
        sellAmount = ExactOutputInput.end();
    }

    /// @dev The SPLIT at `offset` run backwards: each leg yields its share of `amountOut` (the last leg
    /// the rest) to `to`; a leg whose share rounds to nothing is not traded.
    function _splitBackwards(
        bytes calldata actions,
        uint256 offset,
        address tokenIn,
        address tokenOut,
        uint256 amountOut,
        address to
    ) private {
        uint256 legs = RouteActions.byteAt(actions, offset + 1);
        uint256 cursor = offset + RouteActions.SPLIT_HEADER_WIDTH;
        uint256 remaining = amountOut;
        for (uint256 leg; leg < legs; ++leg) {
            (uint256 end,) = RouteActions.legEnd(actions, cursor);
            uint256 legOut =
                leg + 1 == legs ? remaining : (amountOut * RouteActions.uint16At(actions, cursor)) / V2SwapMath.BPS;
            remaining -= legOut;
            bytes calldata hops = actions[cursor + RouteActions.LEG_HEADER_WIDTH:end];
            uint256 last = _previousHop(hops, hops.length);
            address legToken = RouteActions.hopTokenOut(hops, last);
            if (legToken != tokenOut) revert SwapUnexpectedToken(tokenOut, legToken);
            if (legOut != 0) _exactOut(hops, last, tokenIn, legOut, to);
            cursor = end;
        }
    }

    /// @dev The offset of the swap action before the one at `offset` in `hops` (a run of swap actions,
    /// each with its opcode); `hops.length` gives the last one's. Zero for the first. It refuses a
    /// propAMM hop: a SPLIT leg is walked whole before its hops run, though earlier legs may have run
    /// (the revert undoes them; the check lives here for the routers' size).
    function _previousHop(bytes calldata hops, uint256 offset) private pure returns (uint256 previous) {
        for (uint256 at; at < offset;) {
            previous = at;
            uint8 opcode = RouteActions.opcodeAtInBounds(hops, at);
            // Every run backwards is walked here first (a SPLIT leg's whole): propAMMs are exact-input
            // only (`_routeShape` refuses one outside a SPLIT before anything runs).
            if (opcode == RouteActions.SWAP_PROPAMM) revert SwapExactOutputRoute(at);
            at += RouteActions.swapWidth(opcode);
        }
    }

    /// @dev The swap at `offset` of `hops` (a run of SWAP_V2, SWAP_V3 and SWAP_V4 actions starting from
    /// `tokenStart`, checked as the forward pass checks them) run backwards: exactly `amountOut` to
    /// `to`, its input paid by the swaps before it (`_payExactOut`), a V2 pair's before its swap, a V3
    /// pool's in its callback; a V4 hop and the V4 hops before it in one unlock (UniswapV4Module). A V3 pool gets the run back in its callback data, since the callback
    /// cannot read this call's calldata.
    function _exactOut(bytes calldata hops, uint256 offset, address tokenStart, uint256 amountOut, address to)
        private
    {
        address tokenIn = offset == 0 ? tokenStart : RouteActions.hopTokenOut(hops, _previousHop(hops, offset));
        // Run backwards, the swaps bypass `_hop`: no allowlisted propAMM pair is a token here either.
        _refusePair(tokenIn);
        _refusePair(RouteActions.hopTokenOut(hops, offset));
        uint8 opcode = RouteActions.opcodeAtInBounds(hops, offset);
        if (opcode == RouteActions.SWAP_V4) {
            // With the V4 hops before it, in one unlock paid from the order's input: only V4 hops may
            // lead up to a V4 hop run backwards (the module refuses any other). Their currencies between
            // the run's ends are never transferred: they net to zero inside the PoolManager.
            _refusePair(tokenStart);
            _swapV4(hops, 0, offset + RouteActions.SWAP_V4_WIDTH, tokenStart, amountOut, UniswapV4RunMode.EXACT_OUTPUT, to);
        } else if (opcode == RouteActions.SWAP_V3) {
            (address pool, bool zeroForOne) = _v3HopPool(hops, offset, tokenIn);
            _v3ExactOutputSwap(pool, zeroForOne, amountOut, to, abi.encodePacked(uint256(uint160(tokenStart)), offset, hops));
        } else {
            // SWAP_V2: `_routeShape` and `_previousHop` admit no other venue here.
            (address pair, address tokenOut) = _checkHop(hops, offset, tokenIn);
            (uint256 reserve0, uint256 reserve1) = _reserves(pair);
            bool zeroForOne = tokenIn < tokenOut;
            uint256 amountIn = zeroForOne
                ? V2SwapMath.getAmountIn(amountOut, reserve0, reserve1, v2FeeBps)
                : V2SwapMath.getAmountIn(amountOut, reserve1, reserve0, v2FeeBps);
            _payExactOut(hops, offset, tokenStart, amountIn, pair);
            (uint256 amount0Out, uint256 amount1Out) = zeroForOne ? (uint256(0), amountOut) : (amountOut, uint256(0));
            _pairSwap(pair, amount0Out, amount1Out, to);
        }
    }

    /// @dev Pays `amount` of the input of the swap at `offset` of `hops` to `to`: the output of the swap
    /// before it, or for the first the order's input (`tokenStart`) held by this router, never more
    /// than its maximum in all.
    function _payExactOut(bytes calldata hops, uint256 offset, address tokenStart, uint256 amount, address to)
        private
    {
        if (offset != 0) return _exactOut(hops, _previousHop(hops, offset), tokenStart, amount, to);
        if (ExactOutputInput.spend(amount)) _wethCall(0xd0e30db0, amount, 0); // deposit()
        _pay(tokenStart, to, amount);
    }

    /// @dev A V3 pool of a route run backwards asks for its input: paid as `_payExactOut` pays, the
    /// run of swaps read back from `data` (`_exactOut`'s encoding: tokenStart, offset, the run).
    function _v3ExactOutputCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data)
        internal
        virtual
        override
    {
        address tokenStart = address(uint160(uint256(bytes32(data[0:32]))));
        uint256 offset = uint256(bytes32(data[32:64]));
        _payExactOut(data[64:], offset, tokenStart, uint256(amount0Delta > 0 ? amount0Delta : amount1Delta), msg.sender);
    }
}
