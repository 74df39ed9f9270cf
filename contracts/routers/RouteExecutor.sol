// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {RouteActions} from "../libraries/RouteActions.sol";
import {V2SwapMath} from "../libraries/V2SwapMath.sol";
import {RouterFunds} from "./RouterFunds.sol";
import {V2Hops} from "./venues/V2Hops.sol";
import {VenueHops} from "./VenueHops.sol";

/// @title RouteExecutor
/// @notice Runs route actions and settles a swap. The entry points of the routers only differ in how
/// the sell token arrives; everything after that happens here.
/// @dev The router holds no funds between transactions: every action moves the whole running amount
/// on, and settlement pays out everything the route produced. Entry points are gated by `settles`
/// (re-entrancy lock and registry status, see RegistryGate). The interpreter only dispatches: each
/// swap action runs in its venue's module (VenueHops' table), payouts are RouterFunds'.
abstract contract RouteExecutor is VenueHops {
    using SafeERC20 for IERC20;

    /// @notice The Uniswap-V2-style venue a router trades on: only pairs this factory deployed are
    /// accepted, and their pool fee is `feeBps` (30 for Uniswap V2).
    /// @dev Declared here, where routers' constructors name it, though V2Hops keeps its values: the
    /// routers' ABI calls it `RouteExecutor.V2Venue`.
    struct V2Venue {
        address factory;
        uint16 feeBps;
        bytes32 pairInitCodeHash;
    }

    /// @notice Upper bound on the number of actions in one route.
    uint256 public constant MAX_ACTIONS = 8;

    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose status gates settlement and whose administrator may rescue.
    /// @param featureId_ The registry feature this router serves.
    /// @param venue The V2 factory, its pair init-code hash and its pool fee.
    /// @dev The V3 venue table is the concrete router version's to give (UniswapV3Hops' constructor), so
    /// that versions sharing every entry point can differ in their venues.
    constructor(IWETH9 weth_, IRouterRegistry registry_, uint128 featureId_, V2Venue memory venue)
        RouterFunds(weth_, registry_, featureId_)
        V2Hops(venue.factory, venue.pairInitCodeHash, venue.feeBps)
    {}

    /// @dev Checks shared by every entry point, before any token moves. Returns the fields every
    /// entry point needs next, read from calldata once (see `_field`).
    function _checkOrder(SwapParams calldata params)
        internal
        view
        returns (address sellToken, uint256 sellAmount, bytes calldata actions)
    {
        uint256 deadline = _field(params, 5);
        address recipient = address(uint160(_field(params, 4)));
        if (block.timestamp > deadline) revert SwapDeadlineExpired(deadline, block.timestamp);
        if (recipient == address(0)) revert SwapZeroAddress();
        if (recipient == address(this)) revert SwapRecipientIsRouter();
        sellToken = address(uint160(_field(params, 0)));
        sellAmount = _field(params, 1);
        actions = params.actions;
    }

    /// @dev Word `index` of the order's head (0 sellToken, 1 sellAmount, 2 buyToken, 3 minBuyAmount,
    /// 4 recipient, 5 deadline, 6 quoteId), without the ABI decoder's per-access checks: the hot path
    /// reads each field once. An address is its low 160 bits, as the EVM itself reads call targets; in
    /// permit and gasless settlement the witness hash (OrderWitnessHash) signs the whole words, so a
    /// dirty address gives a digest no taker signed and Permit2 refuses it.
    function _field(SwapParams calldata params, uint256 index) internal pure returns (uint256 word) {
        assembly ("memory-safe") {
            word := calldataload(add(params, shl(5, index)))
        }
        if (index == 0 || index == 2 || index == 4) word = uint160(word);
    }

    /// @dev Permit2 accepts 64-byte compact signatures too; the spec fixes the length at 65.
    function _checkSignatureLength(bytes calldata signature) internal pure {
        if (signature.length != 65) revert SwapInvalidSignatureLength(signature.length);
    }

    /// @dev Where the sell token should be delivered: straight into the first pair when the route
    /// starts with a SWAP_V2 (saving a transfer; AllowanceHolder applies the same rule), otherwise to
    /// this router. A signed sell may also be paid into the PoolManager (UniswapV4Hops._signedSellDestination).
    function _inputDestination(bytes calldata actions) internal view returns (address) {
        if (actions.length >= RouteActions.SWAP_V2_WIDTH) return _hopInput(actions, 0);
        return address(this);
    }

    /// @dev Runs the actions on `amountIn` of `tokenIn`, already delivered to `destination` (the value
    /// `_inputDestination` returned), settles, and emits SwapSettled.
    function _executeAndSettle(
        SwapParams calldata params,
        bytes calldata actions,
        address taker,
        address tokenIn,
        uint256 amountIn,
        address destination
    ) internal returns (uint256 buyAmount) {
        uint256 fee;
        (buyAmount, fee) = _runAndPay(params, actions, tokenIn, amountIn, destination != address(this));
        // tokenIn and amountIn are the order's sellToken and sellAmount in every entry point.
        _emitSwapSettled(
            bytes32(_field(params, 6)),
            taker,
            address(uint160(_field(params, 4))),
            tokenIn,
            amountIn,
            address(uint160(_field(params, 2))),
            buyAmount,
            fee
        );
    }

    /// @dev Runs the actions on `amountIn` of `tokenIn` (already where the first hop takes it when
    /// `inPair`: its V2 pair, or the PoolManager synced for a V4 first hop of a signed sell) and
    /// pays the order's recipient: the route must end in the buy token, at least the minimum of it.
    /// The one caller of `_runActions`, so that the optimizer can inline it.
    function _runAndPay(SwapParams calldata params, bytes calldata actions, address tokenIn, uint256 amountIn, bool inPair)
        internal
        returns (uint256 buyAmount, uint256 fee)
    {
        address buyToken = address(uint160(_field(params, 2)));
        address recipient = address(uint160(_field(params, 4)));
        // No allowlisted propAMM pair is a token of the route: its input and output here, every hop's
        // output token (and input, when this router holds it) in `_hop`.
        _refusePair(tokenIn);
        _refusePair(buyToken);
        address token;
        bool paidOut;
        (token, buyAmount, paidOut, fee) = _runActions(actions, buyToken, recipient, tokenIn, amountIn, inPair);
        // Settlement: the route must end in the buy token; the recipient gets all of it, at least the minimum.
        if (token != buyToken) revert SwapUnexpectedToken(buyToken, token);
        uint256 minBuyAmount = _field(params, 3);
        if (buyAmount < minBuyAmount) revert SwapInsufficientOutput(buyAmount, minBuyAmount);
        if (!paidOut) _pay(buyToken, recipient, buyAmount);
    }

    /// @dev SwapSettled, encoded by hand: it is emitted once per swap, and the ABI encoder's generic
    /// path costs a few hundred gas more than five stores. Same topics and data as `emit SwapSettled`.
    function _emitSwapSettled(
        bytes32 quoteId,
        address taker,
        address recipient,
        address sellToken,
        uint256 sellAmount,
        address buyToken,
        uint256 buyAmount,
        uint256 fee
    ) internal {
        bytes32 topic0 = SwapSettled.selector;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, sellToken)
            mstore(add(ptr, 0x20), sellAmount)
            mstore(add(ptr, 0x40), buyToken)
            mstore(add(ptr, 0x60), buyAmount)
            mstore(add(ptr, 0x80), fee)
            log4(ptr, 0xa0, topic0, quoteId, taker, recipient)
        }
    }

    /// @dev The running state (token, amount, whether it already sits in the next pair, whether the
    /// last swap paid the recipient directly, and the fee taken) lives on the stack, not in memory.
    function _runActions(
        bytes calldata actions,
        address buyToken,
        address recipient,
        address token,
        uint256 amount,
        bool inPair
    ) internal returns (address, uint256, bool paidOut, uint256 feeTotal) {
        uint256 offset;
        uint256 count;
        while (offset < actions.length) {
            uint256 nextOffset;
            uint8 opcode = RouteActions.opcodeAtInBounds(actions, offset);
            uint256 width = RouteActions.width(opcode);
            if (width == 0) {
                if (opcode != RouteActions.SPLIT) revert SwapUnknownAction(opcode, offset);
                width = RouteActions.splitWidth(actions, offset);
            }
            // Neither sum can wrap: count is at most MAX_ACTIONS + 1, offset at most the calldata size.
            unchecked {
                nextOffset = offset + width;
                if (opcode == RouteActions.SWAP_V4) (nextOffset, count) = _v4RunEnd(actions, nextOffset, count);
                if (++count > MAX_ACTIONS) revert SwapTooManyActions(MAX_ACTIONS);
            }
            if (nextOffset > actions.length) revert SwapTruncatedAction(offset);
            if (RouteActions.swapWidth(opcode) != 0) {
                (token, amount, inPair, paidOut) =
                    _swap(actions, buyToken, recipient, token, amount, inPair, offset, nextOffset);
            } else if (opcode == RouteActions.SPLIT) {
                (token, amount, inPair, paidOut) = _split(actions, buyToken, recipient, token, amount, offset, nextOffset);
            } else if (opcode == RouteActions.WRAP) {
                if (token != NATIVE) revert SwapUnexpectedToken(NATIVE, token);
                _wethCall(0xd0e30db0, amount, 0); // deposit()
                token = address(weth);
            } else if (opcode == RouteActions.UNWRAP) {
                if (token != address(weth)) revert SwapUnexpectedToken(address(weth), token);
                _wethCall(0x2e1a7d4d, 0, amount); // withdraw(uint256)
                token = NATIVE;
            } else {
                (uint256 bps, address feeRecipient) = RouteActions.decodeFee(actions, offset);
                if (bps > V2SwapMath.BPS) revert SwapFeeTooHigh(bps);
                if (token != buyToken) revert SwapUnexpectedToken(buyToken, token);
                uint256 fee = (amount * bps) / V2SwapMath.BPS;
                amount -= fee;
                feeTotal += fee;
                paidOut = false;
                _pay(token, feeRecipient, fee);
            }
            offset = nextOffset;
        }
        return (token, amount, paidOut, feeTotal);
    }

    /// @dev Consecutive SWAP_V4 actions run in one unlock, and each still counts as an action.
    /// The end of the run of SWAP_V4 actions whose first action ends at `end`, and `count` plus the
    /// actions after the first (the caller counts the first). It stops at MAX_ACTIONS, so the caller's
    /// count check refuses a longer route. The end may pass the calldata: the caller checks it.
    function _v4RunEnd(bytes calldata actions, uint256 end, uint256 count) private pure returns (uint256, uint256) {
        // Both stay small: count is below MAX_ACTIONS, end at most the calldata size plus one width.
        unchecked {
            while (count < MAX_ACTIONS && RouteActions.opcodeAt(actions, end) == RouteActions.SWAP_V4) {
                end += RouteActions.SWAP_V4_WIDTH;
                ++count;
            }
        }
        return (end, count);
    }

    /// @dev One swap action, on whichever venue its opcode names (VenueHops' `_hop`). The output goes
    /// straight to the next hop's input when the next action is a swap, to the recipient when this is
    /// the last action and yields the (ERC20) buy token, and to this router otherwise.
    function _swap(
        bytes calldata actions,
        address buyToken,
        address recipient,
        address tokenIn,
        uint256 amountIn,
        bool inPair,
        uint256 offset,
        uint256 nextOffset
    ) private returns (address tokenOut, uint256 amountOut, bool outInPair, bool paidOut) {
        uint8 opcode = RouteActions.opcodeAtInBounds(actions, offset);
        // A run of SWAP_V4 actions ends in its last hop's output.
        tokenOut = RouteActions.hopTokenOut(actions, nextOffset - RouteActions.swapWidth(opcode));
        // Only a V4 pool pays out the native asset itself (V4's currency zero); any other swap into it
        // is refused before the recipient's balance is read.
        if (tokenOut == NATIVE && opcode != RouteActions.SWAP_V4) revert SwapUnexpectedToken(address(weth), NATIVE);
        if (RouteActions.swapWidth(RouteActions.opcodeAt(actions, nextOffset)) != 0) {
            amountOut = _hopOrRun(actions, offset, nextOffset, tokenIn, amountIn, inPair, _hopInput(actions, nextOffset));
            outInPair = true;
        } else if (nextOffset == actions.length && tokenOut == buyToken && tokenOut != NATIVE) {
            // Measure what the recipient actually received (a fee-on-transfer token delivers less than
            // the formula says) rather than trusting the formula. Native ETH is paid by settlement.
            uint256 before = _balanceOf(tokenOut, recipient);
            _hopOrRun(actions, offset, nextOffset, tokenIn, amountIn, inPair, recipient);
            amountOut = _balanceOf(tokenOut, recipient) - before;
            paidOut = true;
        } else {
            amountOut = _hopOrRun(actions, offset, nextOffset, tokenIn, amountIn, inPair, address(this));
        }
    }

    /// @dev The swap action at `offset` (VenueHops' `_hop`), or the run of SWAP_V4 actions up to
    /// `nextOffset` in one unlock (`_hopV4`).
    function _hopOrRun(
        bytes calldata actions,
        uint256 offset,
        uint256 nextOffset,
        address tokenIn,
        uint256 amountIn,
        bool delivered,
        address to
    ) private returns (uint256) {
        if (RouteActions.opcodeAtInBounds(actions, offset) == RouteActions.SWAP_V4) {
            return _hopV4(actions, offset, nextOffset, tokenIn, amountIn, delivered, to);
        }
        return _hop(actions, offset, tokenIn, amountIn, delivered, to, false);
    }
}
