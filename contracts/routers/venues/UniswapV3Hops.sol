// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IUniswapV3PoolMinimal} from "../../interfaces/IUniswapV3PoolMinimal.sol";
import {IUniswapV3Venue} from "../../interfaces/IUniswapV3Venue.sol";
import {RouteActions} from "../../libraries/RouteActions.sol";
import {RouterFunds} from "../RouterFunds.sol";

/// @title UniswapV3Hops
/// @notice The Uniswap-V3 venue module: SWAP_V3 hops (exact input, and exact output for routes
/// ExactOutputExecutor runs backwards) on the router's V3
/// venues (Uniswap V3 and its forks, each a factory and a pool init-code hash, at most four, fixed at
/// deployment) and the pool callback that pays them.
/// @dev The pool is never taken from calldata: it is computed from the venue and the hop's tokens and
/// fee, kept in transient storage for the length of its `swap` call, and only that address may call
/// `uniswapV3SwapCallback`. The input is always paid from this router in the callback.
abstract contract UniswapV3Hops is IUniswapV3Venue, RouterFunds {
    using SafeERC20 for IERC20;

    /// @notice The most V3 venues one router routes through.
    uint256 public constant MAX_V3_VENUES = 4;

    /// @dev TickMath's price bounds, one step inside: a hop's price limit never binds, so a hop
    /// either fills completely or is refused as a partial fill.
    uint160 private constant MIN_SQRT_PRICE_LIMIT = 4295128739 + 1;
    uint160 private constant MAX_SQRT_PRICE_LIMIT = 1461446703485210103287273052203988822378723970342 - 1;

    /// @dev keccak256("UniswapV3Hops.pool") - 1: the pool of the V3 hop running now, zero otherwise.
    uint256 private constant POOL_SLOT = 0xe73247d23961bc5fdbaa055386310ae8e3f825e6ca31009e10eb7720fed7e9ff;

    uint256 private immutable _v3VenueCount;
    address private immutable _v3Factory0;
    address private immutable _v3Factory1;
    address private immutable _v3Factory2;
    address private immutable _v3Factory3;
    bytes32 private immutable _v3InitCodeHash0;
    bytes32 private immutable _v3InitCodeHash1;
    bytes32 private immutable _v3InitCodeHash2;
    bytes32 private immutable _v3InitCodeHash3;

    /// @param venues The V3 venues, venue index = position (at most MAX_V3_VENUES; may be empty).
    constructor(V3Venue[] memory venues) {
        uint256 count = venues.length;
        if (count > MAX_V3_VENUES) revert SwapV3VenueCount(count, MAX_V3_VENUES);
        V3Venue[4] memory table;
        for (uint256 index; index < count; ++index) {
            if (venues[index].factory == address(0)) revert SwapZeroAddress();
            table[index] = venues[index];
        }
        _v3VenueCount = count;
        (_v3Factory0, _v3InitCodeHash0) = (table[0].factory, table[0].poolInitCodeHash);
        (_v3Factory1, _v3InitCodeHash1) = (table[1].factory, table[1].poolInitCodeHash);
        (_v3Factory2, _v3InitCodeHash2) = (table[2].factory, table[2].poolInitCodeHash);
        (_v3Factory3, _v3InitCodeHash3) = (table[3].factory, table[3].poolInitCodeHash);
    }

    /// @inheritdoc IUniswapV3Venue
    function v3VenueCount() external view returns (uint256) {
        return _v3VenueCount;
    }

    /// @inheritdoc IUniswapV3Venue
    function v3Venue(uint256 index) external view returns (address factory, bytes32 poolInitCodeHash) {
        return _v3VenueAt(index);
    }

    /// @inheritdoc IUniswapV3Venue
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        address pool;
        assembly ("memory-safe") {
            pool := tload(POOL_SLOT)
        }
        // Zero outside a hop (and no caller is address zero), so a stranger, a look-alike pool or the
        // real pool outside its hop is refused before anything is read.
        if (msg.sender != pool) revert SwapV3CallbackRefused(msg.sender);
        // This router's own encodings: an exact-input hop passes (tokenIn, amountIn), an exact-output
        // route run backwards passes its hops (longer), and the pool hands `data` back unchanged.
        if (data.length != 0x40) return _v3ExactOutputCallback(amount0Delta, amount1Delta, data);
        address tokenIn;
        uint256 amountIn;
        assembly ("memory-safe") {
            tokenIn := calldataload(data.offset)
            amountIn := calldataload(add(data.offset, 0x20))
        }
        // The pool owes out one token and is owed the other; a positive delta is what it asks for. An
        // exact-input hop pays exactly its whole input: a pool asking less ran out of liquidity.
        uint256 owed = amount0Delta > 0 ? uint256(amount0Delta) : uint256(amount1Delta);
        if (owed != amountIn) revert SwapV3PartialFill(amountIn, owed);
        IERC20(tokenIn).safeTransfer(msg.sender, owed);
    }

    /// @dev The callback of an exact-output V3 swap (`_v3ExactOutputSwap`), already checked to come from
    /// the pool being swapped with: pays what the pool asks. Routers without exact output refuse it.
    function _v3ExactOutputCallback(int256, int256, bytes calldata) internal virtual {
        revert SwapV3CallbackRefused(msg.sender);
    }

    /// @dev An exact-output swap on `pool` (computed by `_v3HopPool`): exactly `amountOut` to `to`, the
    /// callback (with `data`) paying what the pool asks; refused unless the pool pays all of it.
    function _v3ExactOutputSwap(address pool, bool zeroForOne, uint256 amountOut, address to, bytes memory data)
        internal
    {
        uint256 received = _v3PoolSwap(pool, zeroForOne, -SafeCast.toInt256(amountOut), to, data);
        if (received != amountOut) revert SwapV3PartialFill(amountOut, received);
    }

    /// @dev An exact-input SWAP_V3 hop at `offset`: all of `amountIn` of `tokenIn` (held by this router)
    /// into the venue's pool, the output to `to`. Refused unless the pool takes all of it.
    function _swapV3(bytes calldata actions, uint256 offset, address tokenIn, uint256 amountIn, address to)
        internal
        returns (uint256 amountOut)
    {
        (address pool, bool zeroForOne) = _v3HopPool(actions, offset, tokenIn);
        // The callback paid exactly `amountIn` (or reverted), so only the output is read back.
        amountOut = _v3PoolSwap(pool, zeroForOne, SafeCast.toInt256(amountIn), to, abi.encode(tokenIn, amountIn));
        // A pool takes an input too small to move its price and pays nothing for it: refused, in a route
        // as in a split leg, rather than passing a zero amount on.
        if (amountOut == 0) revert SwapV3ZeroOutput(pool, amountIn);
    }

    /// @dev The venue's pool of the hop at `offset` from `tokenIn`, and the swap's direction.
    function _v3HopPool(bytes calldata actions, uint256 offset, address tokenIn)
        internal
        view
        returns (address pool, bool zeroForOne)
    {
        (address tokenOut, uint24 fee, uint256 venue) = RouteActions.decodeSwapV3(actions, offset);
        // Pools trade ERC20s only: the native asset must be wrapped first and unwrapped after.
        if (tokenIn == NATIVE || tokenOut == NATIVE) revert SwapUnexpectedToken(address(weth), NATIVE);
        (address factory, bytes32 initCodeHash) = _v3VenueAt(venue);
        zeroForOne = tokenIn < tokenOut;
        (address token0, address token1) = zeroForOne ? (tokenIn, tokenOut) : (tokenOut, tokenIn);
        pool = address(
            uint160(
                uint256(
                    keccak256(
                        abi.encodePacked(hex"ff", factory, keccak256(abi.encode(token0, token1, fee)), initCodeHash)
                    )
                )
            )
        );
    }

    /// @dev `pool.swap` with `pool` as the only accepted caller of the callback for its duration (the
    /// callback checks what it asks for); returns what the pool paid out.
    function _v3PoolSwap(address pool, bool zeroForOne, int256 amountSpecified, address to, bytes memory data)
        private
        returns (uint256 received)
    {
        assembly ("memory-safe") {
            tstore(POOL_SLOT, pool)
        }
        // A computed address without code is a pool the factory never deployed (wrong fee tier, tokens).
        if (pool.code.length == 0) revert SwapV3NoPool(pool);
        (int256 amount0, int256 amount1) = IUniswapV3PoolMinimal(pool).swap(
            to,
            zeroForOne,
            amountSpecified,
            zeroForOne ? MIN_SQRT_PRICE_LIMIT : MAX_SQRT_PRICE_LIMIT,
            data
        );
        assembly ("memory-safe") {
            tstore(POOL_SLOT, 0)
        }
        // The pool pays out its negative delta.
        received = uint256(-(zeroForOne ? amount1 : amount0));
    }

    /// @dev Venue `index` of the table.
    function _v3VenueAt(uint256 index) private view returns (address factory, bytes32 initCodeHash) {
        if (index >= _v3VenueCount) revert SwapUnknownV3Venue(index, _v3VenueCount);
        if (index == 0) return (_v3Factory0, _v3InitCodeHash0);
        if (index == 1) return (_v3Factory1, _v3InitCodeHash1);
        if (index == 2) return (_v3Factory2, _v3InitCodeHash2);
        return (_v3Factory3, _v3InitCodeHash3);
    }
}
