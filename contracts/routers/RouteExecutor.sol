// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISwapSettlement} from "../interfaces/ISwapSettlement.sol";
import {IUniswapV2PairMinimal} from "../interfaces/IUniswapV2PairMinimal.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {RouteActions} from "../libraries/RouteActions.sol";
import {V2SwapMath} from "../libraries/V2SwapMath.sol";

/// @title RouteExecutor
/// @notice Runs route actions and settles a swap. The entry points of the routers only differ in how
/// the sell token arrives; everything after that happens here.
/// @dev The router holds no funds between transactions: every action moves the whole running amount
/// on, and settlement pays out everything the route produced.
abstract contract RouteExecutor is ISwapSettlement {
    using SafeERC20 for IERC20;

    /// @notice The native-asset placeholder used for sell and buy tokens.
    address public constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    /// @notice Upper bound on the number of actions in one route.
    uint256 public constant MAX_ACTIONS = 8;

    /// @notice Wrapped ether.
    IWETH9 public immutable weth;

    /// @dev The running state of a route while its actions execute.
    struct Running {
        address token;
        // True when the running amount already sits in the pair of the next SWAP_V2 action.
        bool inPair;
        // True when the last swap paid the recipient directly (and `amount` was measured there).
        bool paidOut;
        uint256 amount;
        uint256 fee;
    }

    /// @param weth_ Wrapped ether.
    constructor(IWETH9 weth_) {
        if (address(weth_) == address(0)) revert SwapZeroAddress();
        weth = weth_;
    }

    /// @notice Accepts ether only from WETH, when unwrapping.
    receive() external payable {
        if (msg.sender != address(weth)) revert SwapNativeValueMismatch(0, msg.value);
    }

    /// @dev Checks shared by every entry point, before any token moves.
    function _checkOrder(SwapParams calldata params) internal view {
        if (block.timestamp > params.deadline) revert SwapDeadlineExpired(params.deadline, block.timestamp);
        if (params.recipient == address(0)) revert SwapZeroAddress();
        if (params.recipient == address(this)) revert SwapRecipientIsRouter();
    }

    /// @dev Permit2 accepts 64-byte compact signatures too; the spec fixes the length at 65.
    function _checkSignatureLength(bytes calldata signature) internal pure {
        if (signature.length != 65) revert SwapInvalidSignatureLength(signature.length);
    }

    /// @dev Where the sell token should be delivered: straight into the first pair when the route
    /// starts with a swap (saving a transfer), otherwise to this router.
    function _inputDestination(bytes calldata actions) internal view returns (address) {
        if (actions.length >= RouteActions.SWAP_V2_WIDTH && RouteActions.opcodeAt(actions, 0) == RouteActions.SWAP_V2) {
            return RouteActions.pairAt(actions, 0);
        }
        return address(this);
    }

    /// @dev Runs the actions on `amountIn` of `tokenIn`, already delivered to `destination` (the value
    /// `_inputDestination` returned), settles, and emits SwapSettled.
    function _executeAndSettle(
        SwapParams calldata params,
        address taker,
        address tokenIn,
        uint256 amountIn,
        address destination
    ) internal returns (uint256 buyAmount) {
        Running memory run = Running({
            token: tokenIn,
            inPair: destination != address(this),
            paidOut: false,
            amount: amountIn,
            fee: 0
        });
        _runActions(params, run);
        buyAmount = _settle(params, run);
        emit SwapSettled(
            params.quoteId,
            taker,
            params.recipient,
            params.sellToken,
            params.sellAmount,
            params.buyToken,
            buyAmount,
            run.fee
        );
    }

    function _runActions(SwapParams calldata params, Running memory run) private {
        bytes calldata actions = params.actions;
        uint256 offset;
        uint256 count;
        while (offset < actions.length) {
            if (++count > MAX_ACTIONS) revert SwapTooManyActions(MAX_ACTIONS);
            uint8 opcode = RouteActions.opcodeAt(actions, offset);
            uint256 width = RouteActions.width(opcode);
            if (width == 0) revert SwapUnknownAction(opcode, offset);
            if (offset + width > actions.length) revert SwapTruncatedAction(offset);
            uint256 nextOffset = offset + width;

            if (opcode == RouteActions.SWAP_V2) {
                _swapV2(params, run, offset, nextOffset);
            } else if (opcode == RouteActions.WRAP) {
                if (run.token != NATIVE) revert SwapUnexpectedToken(NATIVE, run.token);
                weth.deposit{value: run.amount}();
                run.token = address(weth);
            } else if (opcode == RouteActions.UNWRAP) {
                if (run.token != address(weth)) revert SwapUnexpectedToken(address(weth), run.token);
                weth.withdraw(run.amount);
                run.token = NATIVE;
            } else {
                (uint256 bps, address feeRecipient) = RouteActions.decodeFee(actions, offset);
                if (bps > V2SwapMath.BPS) revert SwapFeeTooHigh(bps);
                if (run.token != params.buyToken) revert SwapUnexpectedToken(params.buyToken, run.token);
                uint256 fee = (run.amount * bps) / V2SwapMath.BPS;
                run.amount -= fee;
                run.fee += fee;
                _pay(run.token, feeRecipient, fee);
            }
            offset = nextOffset;
        }
    }

    /// @dev One hop. The output goes to the next pair when the next action is a swap, to the recipient
    /// when this is the last action and yields the (ERC20) buy token, and to this router otherwise.
    function _swapV2(SwapParams calldata params, Running memory run, uint256 offset, uint256 nextOffset) private {
        bytes calldata actions = params.actions;
        (address pair, address tokenOut, uint256 feeBps) = RouteActions.decodeSwapV2(actions, offset);
        if (feeBps >= V2SwapMath.BPS) revert SwapFeeTooHigh(feeBps);
        address tokenIn = run.token;
        // Pools trade ERC20s only: the native asset must be wrapped first and unwrapped after.
        if (tokenIn == NATIVE) revert SwapUnexpectedToken(address(weth), NATIVE);
        if (tokenOut == NATIVE) revert SwapUnexpectedToken(address(weth), NATIVE);
        if (!run.inPair) IERC20(tokenIn).safeTransfer(pair, run.amount);

        (uint256 reserve0, uint256 reserve1) = _reserves(pair);
        bool zeroForOne = tokenIn < tokenOut;
        uint256 amountOut = zeroForOne
            ? V2SwapMath.getAmountOut(run.amount, reserve0, reserve1, feeBps)
            : V2SwapMath.getAmountOut(run.amount, reserve1, reserve0, feeBps);
        (uint256 amount0Out, uint256 amount1Out) = zeroForOne ? (uint256(0), amountOut) : (amountOut, uint256(0));

        if (RouteActions.opcodeAt(actions, nextOffset) == RouteActions.SWAP_V2) {
            _pairSwap(pair, amount0Out, amount1Out, RouteActions.pairAt(actions, nextOffset));
            run.inPair = true;
            run.amount = amountOut;
        } else if (nextOffset == actions.length && tokenOut == params.buyToken) {
            // Measure what the recipient actually received (a fee-on-transfer token delivers less than
            // the formula says) rather than trusting the formula.
            uint256 before = _balanceOf(tokenOut, params.recipient);
            _pairSwap(pair, amount0Out, amount1Out, params.recipient);
            run.amount = _balanceOf(tokenOut, params.recipient) - before;
            run.paidOut = true;
            run.inPair = false;
        } else {
            _pairSwap(pair, amount0Out, amount1Out, address(this));
            run.inPair = false;
            run.amount = amountOut;
        }
        run.token = tokenOut;
    }

    /// @dev The route must end in the buy token; the recipient gets all of it, and at least the minimum.
    function _settle(SwapParams calldata params, Running memory run) private returns (uint256 buyAmount) {
        if (run.token != params.buyToken) revert SwapUnexpectedToken(params.buyToken, run.token);
        buyAmount = run.amount;
        if (buyAmount < params.minBuyAmount) revert SwapInsufficientOutput(buyAmount, params.minBuyAmount);
        if (!run.paidOut) _pay(run.token, params.recipient, buyAmount);
    }

    /// @dev `getReserves` without the ABI decoder: the hot path reads it once per hop.
    function _reserves(address pair) private view returns (uint256 reserve0, uint256 reserve1) {
        assembly ("memory-safe") {
            mstore(0, 0x0902f1ac00000000000000000000000000000000000000000000000000000000)
            if iszero(and(gt(returndatasize(), 0x3f), staticcall(gas(), pair, 0, 4, 0, 0x40))) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            reserve0 := mload(0)
            reserve1 := mload(0x20)
        }
    }

    /// @dev `swap(amount0Out, amount1Out, to, "")` encoded by hand, once per hop on the hot path.
    function _pairSwap(address pair, uint256 amount0Out, uint256 amount1Out, address to) private {
        bytes4 selector = IUniswapV2PairMinimal.swap.selector;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 0x04), amount0Out)
            mstore(add(ptr, 0x24), amount1Out)
            mstore(add(ptr, 0x44), to)
            mstore(add(ptr, 0x64), 0x80)
            mstore(add(ptr, 0x84), 0)
            if iszero(call(gas(), pair, 0, ptr, 0xa4, 0, 0)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
        }
    }

    /// @dev `balanceOf` without the ABI decoder; reverts if the token does not answer with a word.
    function _balanceOf(address token, address account) private view returns (uint256 amount) {
        assembly ("memory-safe") {
            mstore(0, 0x70a0823100000000000000000000000000000000000000000000000000000000)
            mstore(4, account)
            if iszero(and(gt(returndatasize(), 0x1f), staticcall(gas(), token, 0, 0x24, 0, 0x20))) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            amount := mload(0)
        }
    }

    /// @dev Pays `amount` of `token` (ERC20 or native) held by this router.
    function _pay(address token, address to, uint256 amount) internal {
        if (amount == 0) return;
        if (token == NATIVE) {
            (bool sent,) = to.call{value: amount}("");
            if (!sent) revert SwapNativeTransferFailed(to, amount);
        } else {
            IERC20(token).safeTransfer(to, amount);
        }
    }
}
