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

    /// @dev The PoolManager's selectors: its calls are encoded by hand, which costs less gas per hop than
    /// the ABI coder's encoding and code-size checks. Each function copies the one it needs to a local,
    /// which its assembly stores left-aligned. The addresses those calls carry are never masked there:
    /// every one is read clean (`shr(96, …)` of a calldata word, RouteActions' readers, `_currency`).
    bytes4 private constant UNLOCK_SELECTOR = IUniswapV4PoolManagerMinimal.unlock.selector;
    bytes4 private constant SWAP_SELECTOR = IUniswapV4PoolManagerMinimal.swap.selector;
    bytes4 private constant SYNC_SELECTOR = IUniswapV4PoolManagerMinimal.sync.selector;
    bytes4 private constant SETTLE_SELECTOR = IUniswapV4PoolManagerMinimal.settle.selector;
    bytes4 private constant TAKE_SELECTOR = IUniswapV4PoolManagerMinimal.take.selector;

    IUniswapV4PoolManagerMinimal private immutable _poolManager;
    address private immutable _self;

    /// @param poolManager_ The PoolManager of the router that creates this module.
    constructor(IUniswapV4PoolManagerMinimal poolManager_) {
        _poolManager = poolManager_;
        _self = address(this);
    }

    /// @notice Runs a run of SWAP_V4 hops in one unlock, in the router's context. Its calldata after
    /// the selector is the router's packed encoding (see HOPS_OFFSET), not ABI.
    /// @return amountOut The run's output, taken to the receiver (the input, in EXACT_OUTPUT mode).
    /// @dev Payable because DELEGATECALL keeps the router entry point's `msg.value` (a native sell);
    /// the ether is the router's, and only a native run's input is paid from it.
    function swapV4Run() external payable returns (uint256 amountOut) {
        if (address(this) == _self) revert IUniswapV4Venue.SwapV4CallbackRefused(msg.sender);
        IUniswapV4PoolManagerMinimal manager = _poolManager;
        bytes4 selector = UNLOCK_SELECTOR;
        // `unlock(msg.data[4:])`, encoded past the free memory pointer; a revert is passed on as it is.
        // The callback returns `abi.encode(amount)`, which `unlock` returns as `bytes`: offset, length,
        // then the amount. Shorter return data reverts with no data.
        assembly ("memory-safe") {
            tstore(UNLOCKING_SLOT, 1)
            let ptr := mload(0x40)
            let length := sub(calldatasize(), 4)
            mstore(ptr, selector)
            mstore(add(ptr, 4), 0x20)
            mstore(add(ptr, 36), length)
            calldatacopy(add(ptr, 68), 4, length)
            mstore(add(add(ptr, 68), length), 0)
            if iszero(call(gas(), manager, 0, ptr, add(68, and(add(length, 31), not(31))), 0, 0)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
            tstore(UNLOCKING_SLOT, 0)
            if lt(returndatasize(), 0x60) { revert(0, 0) }
            returndatacopy(0, 0x40, 0x20)
            amountOut := mload(0)
        }
    }

    /// @notice The router's `unlockCallback` (IUniswapV4Venue), handed here unchanged: accepted only
    /// from the PoolManager during the router's own unlock. Swaps hop by hop, then pays the run's input
    /// and takes its output, once each.
    /// @param data The router's encoding (see HOPS_OFFSET).
    /// @return The run's output amount (the input, in EXACT_OUTPUT mode), ABI-encoded: returned by
    /// `_returnAmount`, which ends the call.
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
        (address tokenIn, uint256 amountIn, address to, uint256 mode) = _header(data);
        if (mode == UniswapV4RunMode.EXACT_OUTPUT) _returnAmount(_exactOutputRun(data, tokenIn, amountIn, to));
        address manager = address(_poolManager);
        // An input already paid in (a signed sell delivered after the router's `sync`) is settled first,
        // before any swap runs a hook: the PoolManager credits what arrived since the sync to whoever
        // settles, so no hook can sync or settle that currency in between. A short delivery leaves the
        // run unsettled and reverts the unlock.
        bool atManager = mode == UniswapV4RunMode.AT_MANAGER;
        if (atManager) _settle(manager, 0);
        address token = tokenIn;
        uint256 amount = amountIn;
        // The router passes whole SWAP_V4 actions (its width checks bound them), at most a route's.
        for (uint256 at = HOPS_OFFSET; at < data.length;) {
            uint256 hopIn = amount;
            uint256 paid;
            int256 amountSpecified;
            // SafeCast leaves it at most type(int256).max, whose negation fits.
            unchecked {
                amountSpecified = -SafeCast.toInt256(hopIn);
            }
            (token, paid, amount) = _swap(data, at, token, amountSpecified);
            // The price limit never binds: short of liquidity, the pool takes less than offered.
            if (paid != hopIn) revert IUniswapV4Venue.SwapV4PartialFill(hopIn, paid);
            if (amount == 0) revert IUniswapV4Venue.SwapV4ZeroOutput(token, hopIn);
            // Bounded by the calldata's length.
            unchecked {
                at += RouteActions.SWAP_V4_WIDTH;
            }
        }
        // Intermediate currencies net to zero inside the PoolManager: only the run's ends move.
        if (tokenIn == RouteActions.NATIVE) {
            _settle(manager, amountIn);
        } else if (!atManager) {
            _settleFromRouter(manager, tokenIn, amountIn);
        }
        _take(manager, _currency(token), to, amount);
        _returnAmount(amount);
    }

    /// @dev The run's header (see HOPS_OFFSET), read without the slices' bounds checks: past the
    /// callback's checks, `data` is this router's own run, which `swapV4Run` handed to `unlock` whole.
    function _header(bytes calldata data)
        private
        pure
        returns (address tokenIn, uint256 amountIn, address to, uint256 mode)
    {
        assembly ("memory-safe") {
            tokenIn := shr(96, calldataload(data.offset))
            amountIn := calldataload(add(data.offset, 20))
            to := shr(96, calldataload(add(data.offset, 52)))
            mode := byte(0, calldataload(add(data.offset, 72)))
        }
    }

    /// @dev An exact-output run (UniswapV4RunMode.EXACT_OUTPUT): its hops swapped from the last to the first, each for
    /// exactly the input the next one needs, the last for `amountOut`; the first hop's input is then paid
    /// from the order's input held by the router, counted against its maximum (ExactOutputInput: ETH
    /// wrapped first when the route starts with WRAP), and `amountOut` taken to `to`. Only V4 hops may
    /// lead up to a V4 hop run backwards: the router passes the route's hops up to this one, and any
    /// other venue among them is refused here.
    /// Returns the run's input.
    function _exactOutputRun(bytes calldata data, address tokenIn, uint256 amountOut, address to)
        private
        returns (uint256)
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
        address manager = address(_poolManager);
        bool wrapped = ExactOutputInput.spend(amount);
        if (tokenIn == RouteActions.NATIVE) {
            _settle(manager, amount);
        } else {
            if (wrapped) IWETH9(tokenIn).deposit{value: amount}();
            _settleFromRouter(manager, tokenIn, amount);
        }
        _take(manager, _currency(tokens[count]), to, amountOut);
        return amount;
    }

    /// @dev Pays `amount` of `token`, held by the router, into the PoolManager for this run.
    function _settleFromRouter(address manager, address token, uint256 amount) private {
        bytes4 selector = SYNC_SELECTOR;
        // `sync(token)`, in scratch space.
        assembly ("memory-safe") {
            mstore(0, selector)
            mstore(4, token)
            if iszero(call(gas(), manager, 0, 0, 0x24, 0, 0)) {
                let ptr := mload(0x40)
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
        }
        IERC20(token).safeTransfer(manager, amount);
        _settle(manager, 0);
    }

    /// @dev `settle{value: value}()`: credits this run with what arrived since the `sync`, or with the
    /// native ETH sent. Its return value (the amount credited) is not needed.
    function _settle(address manager, uint256 value) private {
        bytes4 selector = SETTLE_SELECTOR;
        assembly ("memory-safe") {
            mstore(0, selector)
            if iszero(call(gas(), manager, value, 0, 4, 0, 0)) {
                let ptr := mload(0x40)
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
        }
    }

    /// @dev `take(currency, to, amount)`, encoded past the free memory pointer.
    function _take(address manager, address currency, address to, uint256 amount) private {
        bytes4 selector = TAKE_SELECTOR;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 4), currency)
            mstore(add(ptr, 36), to)
            mstore(add(ptr, 68), amount)
            if iszero(call(gas(), manager, 0, ptr, 100, 0, 0)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
        }
    }

    /// @dev Ends the callback, returning `abi.encode(amount)` as `bytes` (offset, length, amount)
    /// without building it in memory first.
    function _returnAmount(uint256 amount) private pure {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, 0x20)
            mstore(add(ptr, 0x20), 0x20)
            mstore(add(ptr, 0x40), amount)
            return(ptr, 0x60)
        }
    }

    /// @dev One swap of the hop at `at` (its opcode byte): `tokenIn` into the pool (sorted tokenIn and
    /// tokenOut, fee, tickSpacing, hooks), `amountSpecified` as V4 reads it (negative: exact input;
    /// positive: exact output). Returns the output token (NATIVE for native ETH), the input paid and the
    /// output received, as the swap's delta says: a hook's delta is already in them.
    function _swap(bytes calldata data, uint256 at, address tokenIn, int256 amountSpecified)
        private
        returns (address tokenOut, uint256 paid, uint256 received)
    {
        address manager = address(_poolManager);
        address native = RouteActions.NATIVE;
        bytes4 selector = SWAP_SELECTOR;
        // `swap(key, params, "")` encoded by hand past the free memory pointer: the key's five words
        // (currency0, currency1, fee, tickSpacing, hooks), the params' three (zeroForOne, amountSpecified,
        // sqrtPriceLimitX96), then the offset (0x120) and zero length of the empty hook data. A revert is
        // passed on as it is; return data shorter than the delta reverts with no data.
        assembly ("memory-safe") {
            let word := calldataload(add(add(data.offset, at), 1))
            // The action may write native ETH as zero (the V4 currency) or as the route's NATIVE.
            let currencyOut := shr(96, word)
            currencyOut := mul(currencyOut, iszero(eq(currencyOut, native)))
            let currencyIn := mul(tokenIn, iszero(eq(tokenIn, native)))
            let zeroForOne := lt(currencyIn, currencyOut)
            // Sorted: (currencyIn, currencyOut) when zeroForOne, else swapped.
            let flip := mul(zeroForOne, xor(currencyIn, currencyOut))
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 4), xor(currencyOut, flip))
            mstore(add(ptr, 36), xor(currencyIn, flip))
            mstore(add(ptr, 68), and(shr(72, word), 0xffffff))
            mstore(add(ptr, 100), signextend(2, shr(48, word)))
            mstore(add(ptr, 132), shr(96, calldataload(add(add(data.offset, at), 27))))
            mstore(add(ptr, 164), zeroForOne)
            mstore(add(ptr, 196), amountSpecified)
            // MIN_SQRT_PRICE_LIMIT when zeroForOne, else MAX_SQRT_PRICE_LIMIT.
            mstore(add(ptr, 228), add(MAX_SQRT_PRICE_LIMIT, mul(zeroForOne, sub(MIN_SQRT_PRICE_LIMIT, MAX_SQRT_PRICE_LIMIT))))
            mstore(add(ptr, 260), 0x120)
            mstore(add(ptr, 292), 0)
            if iszero(call(gas(), manager, 0, ptr, 324, 0, 0x20)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
            if lt(returndatasize(), 0x20) { revert(0, 0) }
            // A BalanceDelta (amount0 in the upper 128 bits); (input, output) is (amount0, amount1) when zeroForOne.
            let delta := mload(0)
            let amount0 := sar(128, delta)
            let amount1 := signextend(15, delta)
            let swapped := mul(zeroForOne, xor(amount0, amount1))
            let input := xor(amount1, swapped)
            let output := xor(amount0, swapped)
            tokenOut := or(currencyOut, mul(iszero(currencyOut), native))
            // The swapper owes the input (negative) and is owed the output (positive); a hook's delta may
            // turn either sign, which reads as nothing paid or received.
            paid := mul(slt(input, 0), sub(0, input))
            received := mul(sgt(output, 0), output)
        }
    }

    /// @dev The V4 currency of a route token: NATIVE (or zero) is native ETH, address zero.
    function _currency(address token) private pure returns (address) {
        return token == RouteActions.NATIVE ? address(0) : token;
    }
}
