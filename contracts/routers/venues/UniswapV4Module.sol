// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IExactOutputSettlement} from "../../interfaces/IExactOutputSettlement.sol";
import {IUniswapV4PoolManagerMinimal} from "../../interfaces/IUniswapV4PoolManagerMinimal.sol";
import {IUniswapV4Venue} from "../../interfaces/IUniswapV4Venue.sol";
import {IWETH9} from "../../interfaces/IWETH9.sol";
import {ExactOutputInput} from "../../libraries/ExactOutputInput.sol";
import {RouteActions} from "../../libraries/RouteActions.sol";
import {UniswapV4RunMode} from "../../libraries/UniswapV4RunMode.sol";

/// @title UniswapV4Module
/// @notice The body of a router's SWAP_V4 hops, run by DELEGATECALL from the router (UniswapV4Hops), so
/// in the router's context: its balances, its transient storage. `swapV4Run` unlocks the PoolManager;
/// the PoolManager calls the router's `unlockCallback`, which the router hands here as well.
/// @dev A separate deployable because the routers have no room for it (EIP-170): each router creates
/// its own module in its constructor, so the code it delegates to is fixed by the router's own
/// creation code, never by an argument. Called directly, it refuses: it holds nothing and must not be
/// mistaken for a router.
contract UniswapV4Module {
    using SafeERC20 for IERC20;

    /// @dev TickMath's price bounds, one step inside: the limit never binds, so a hop fills completely
    /// or is refused as a partial fill.
    uint160 private constant MIN_SQRT_PRICE_LIMIT = 4295128739 + 1;
    uint160 private constant MAX_SQRT_PRICE_LIMIT = 1461446703485210103287273052203988822378723970342 - 1;

    /// @dev Layout of the data the router hands over (after `swapV4Run`'s selector) and this module
    /// hands to `unlock`: input token (20), amount (32: the input; the output in EXACT_OUTPUT mode),
    /// output receiver (20), how the input is paid (1: UniswapV4RunMode; any other value than
    /// AT_MANAGER and EXACT_OUTPUT reads as IN_ROUTER), then the hops as the route
    /// encodes them (SWAP_V4_WIDTH bytes each, opcode included).
    uint256 private constant HOPS_OFFSET = 73;

    /// @dev keccak256("UniswapV4Hops.unlocking") - 1, in the router's transient storage: set for the
    /// length of a run's `unlock`, so the callback is accepted only inside the router's own unlock.
    uint256 private constant UNLOCKING_SLOT = 0x9722affc808bce42240172b6f6bf94125abbab68e56245a2e72b25ebaa1a9b40;

    IUniswapV4PoolManagerMinimal private immutable _poolManager;
    address private immutable _self;

    /// @param poolManager_ The PoolManager of the router that creates this module.
    constructor(IUniswapV4PoolManagerMinimal poolManager_) {
        _poolManager = poolManager_;
        _self = address(this);
    }

    /// @notice Runs a run of SWAP_V4 hops in one unlock, in the router's context. Its calldata after
    /// the selector is the router's packed encoding (see HOPS_OFFSET), not ABI.
    /// @return amountOut The run's output, taken to the receiver.
    /// @dev Payable because DELEGATECALL keeps the router entry point's `msg.value` (a native sell);
    /// the ether is the router's, and only a native run's input is paid from it.
    function swapV4Run() external payable returns (uint256 amountOut) {
        if (address(this) == _self) revert IUniswapV4Venue.SwapV4CallbackRefused(msg.sender);
        assembly ("memory-safe") {
            tstore(UNLOCKING_SLOT, 1)
        }
        bytes memory result = _poolManager.unlock(msg.data[4:]);
        assembly ("memory-safe") {
            tstore(UNLOCKING_SLOT, 0)
        }
        amountOut = abi.decode(result, (uint256));
    }

    /// @notice The router's `unlockCallback` (IUniswapV4Venue), handed here unchanged: accepted only
    /// from the PoolManager during the router's own unlock. Swaps hop by hop, then pays the run's input
    /// and takes its output, once each.
    /// @param data The router's encoding (see HOPS_OFFSET).
    /// @return The run's output amount, ABI-encoded.
    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        bool unlocking;
        assembly ("memory-safe") {
            unlocking := tload(UNLOCKING_SLOT)
        }
        // A stranger, or the PoolManager unlocked by anyone else. Called on this module itself, the flag
        // is this module's own, which nothing sets: `swapV4Run` refuses to run here.
        if (msg.sender != address(_poolManager) || !unlocking) {
            revert IUniswapV4Venue.SwapV4CallbackRefused(msg.sender);
        }
        address tokenIn = address(bytes20(data[0:20]));
        uint256 amountIn = uint256(bytes32(data[20:52]));
        address to = address(bytes20(data[52:72]));
        uint8 mode = uint8(data[72]);
        if (mode == UniswapV4RunMode.EXACT_OUTPUT) return _exactOutputRun(data, tokenIn, amountIn, to);
        IUniswapV4PoolManagerMinimal manager = _poolManager;
        // An input already paid in (a signed sell delivered after the router's `sync`) is settled first,
        // before any swap runs a hook: the PoolManager credits what arrived since the sync to whoever
        // settles, so no hook can sync or settle that currency in between. A short delivery leaves the
        // run unsettled and reverts the unlock.
        bool atManager = mode == UniswapV4RunMode.AT_MANAGER;
        if (atManager) manager.settle();
        address token = tokenIn;
        uint256 amount = amountIn;
        // The router passes whole SWAP_V4 actions (its width checks bound them), at most a route's.
        for (uint256 at = HOPS_OFFSET; at < data.length; at += RouteActions.SWAP_V4_WIDTH) {
            uint256 hopIn = amount;
            uint256 paid;
            (token, paid, amount) = _swap(data, at, token, -SafeCast.toInt256(hopIn));
            // The price limit never binds: short of liquidity, the pool takes less than offered.
            if (paid != hopIn) revert IUniswapV4Venue.SwapV4PartialFill(hopIn, paid);
            if (amount == 0) revert IUniswapV4Venue.SwapV4ZeroOutput(token, hopIn);
        }
        // Intermediate currencies net to zero inside the PoolManager: only the run's ends move.
        if (tokenIn == RouteActions.NATIVE) {
            manager.settle{value: amountIn}();
        } else if (!atManager) {
            _settleFromRouter(manager, tokenIn, amountIn);
        }
        manager.take(_currency(token), to, amount);
        return abi.encode(amount);
    }

    /// @dev An exact-output run (UniswapV4RunMode.EXACT_OUTPUT): its hops swapped from the last to the first, each for
    /// exactly the input the next one needs, the last for `amountOut`; the first hop's input is then paid
    /// from the order's input held by the router, counted against its maximum (ExactOutputInput: ETH
    /// wrapped first when the route starts with WRAP), and `amountOut` taken to `to`. Only V4 hops may
    /// lead up to a V4 hop run backwards: the router passes the route's hops up to this one, and any
    /// other venue among them is refused here.
    function _exactOutputRun(bytes calldata data, address tokenIn, uint256 amountOut, address to)
        private
        returns (bytes memory)
    {
        // Each hop's input token, found forwards: [0] is the run's input; a route has at most 8 actions.
        address[9] memory tokens;
        tokens[0] = tokenIn;
        uint256 count;
        for (uint256 at = HOPS_OFFSET; at < data.length; at += RouteActions.SWAP_V4_WIDTH) {
            if (uint8(data[at]) != RouteActions.SWAP_V4) revert IExactOutputSettlement.SwapExactOutputRoute(at - HOPS_OFFSET);
            ++count;
            tokens[count] = RouteActions.hopTokenOut(data, at);
        }
        uint256 amount = amountOut;
        for (uint256 hop = count; hop != 0; --hop) {
            uint256 wanted = amount;
            uint256 received;
            (, amount, received) =
                _swap(data, HOPS_OFFSET + (hop - 1) * RouteActions.SWAP_V4_WIDTH, tokens[hop - 1], SafeCast.toInt256(wanted));
            // Short of liquidity, the pool pays less than asked.
            if (received != wanted) revert IUniswapV4Venue.SwapV4PartialFill(wanted, received);
        }
        IUniswapV4PoolManagerMinimal manager = _poolManager;
        bool wrapped = ExactOutputInput.spend(amount);
        if (tokenIn == RouteActions.NATIVE) {
            manager.settle{value: amount}();
        } else {
            if (wrapped) IWETH9(tokenIn).deposit{value: amount}();
            _settleFromRouter(manager, tokenIn, amount);
        }
        manager.take(_currency(tokens[count]), to, amountOut);
        return abi.encode(amount);
    }

    /// @dev Pays `amount` of `token`, held by the router, into the PoolManager for this run.
    function _settleFromRouter(IUniswapV4PoolManagerMinimal manager, address token, uint256 amount) private {
        manager.sync(token);
        IERC20(token).safeTransfer(address(manager), amount);
        manager.settle();
    }

    /// @dev One swap of the hop at `at` (its opcode byte): `tokenIn` into the pool (sorted tokenIn and
    /// tokenOut, fee, tickSpacing, hooks), `amountSpecified` as V4 reads it (negative: exact input;
    /// positive: exact output). Returns the output token (NATIVE for native ETH), the input paid and the
    /// output received, as the swap's delta says: a hook's delta is already in them.
    function _swap(bytes calldata data, uint256 at, address tokenIn, int256 amountSpecified)
        private
        returns (address tokenOut, uint256 paid, uint256 received)
    {
        IUniswapV4PoolManagerMinimal.PoolKey memory key;
        address currencyOut;
        assembly ("memory-safe") {
            let word := calldataload(add(add(data.offset, at), 1))
            currencyOut := shr(96, word)
            mstore(add(key, 0x40), and(shr(72, word), 0xffffff))
            mstore(add(key, 0x60), signextend(2, and(shr(48, word), 0xffffff)))
            mstore(add(key, 0x80), shr(96, calldataload(add(add(data.offset, at), 27))))
        }
        // The action may write native ETH as zero (the V4 currency) or as the route's NATIVE.
        currencyOut = _currency(currencyOut);
        address currencyIn = _currency(tokenIn);
        bool zeroForOne = currencyIn < currencyOut;
        (key.currency0, key.currency1) = zeroForOne ? (currencyIn, currencyOut) : (currencyOut, currencyIn);
        int256 delta = _poolManager.swap(
            key,
            IUniswapV4PoolManagerMinimal.SwapParams({
                zeroForOne: zeroForOne,
                amountSpecified: amountSpecified,
                sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_PRICE_LIMIT : MAX_SQRT_PRICE_LIMIT
            }),
            ""
        );
        int256 amount0 = delta >> 128;
        int256 amount1 = int256(int128(delta));
        (int256 input, int256 output) = zeroForOne ? (amount0, amount1) : (amount1, amount0);
        tokenOut = currencyOut == address(0) ? RouteActions.NATIVE : currencyOut;
        // The swapper owes the input (negative) and is owed the output (positive); a hook's delta may
        // turn either sign, which reads as nothing paid or received.
        paid = input < 0 ? uint256(-input) : 0;
        received = output > 0 ? uint256(output) : 0;
    }

    /// @dev The V4 currency of a route token: NATIVE (or zero) is native ETH, address zero.
    function _currency(address token) private pure returns (address) {
        return token == RouteActions.NATIVE ? address(0) : token;
    }
}
