// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IUniswapV3Venue
/// @notice A router's Uniswap-V3-style venues (Uniswap V3 and its forks: configuration, not code) and
/// the pool callback they pay through.
/// @dev A SWAP_V3 action (`0x06`: tokenOut 20 bytes, pool fee uint24 3 bytes, venue index 1 byte) names
/// no pool: the router computes it from venue `venue`'s factory and pool init-code hash and (running
/// token, tokenOut, fee), so a route can only reach pools that venue's factory deployed.
interface IUniswapV3Venue {
    /// @notice A V3 venue: its factory and its pools' init-code hash.
    struct V3Venue {
        address factory;
        bytes32 poolInitCodeHash;
    }

    /// @notice A SWAP_V3 names venue `venue`; this router has `count` (indexes 0 to count - 1).
    error SwapUnknownV3Venue(uint256 venue, uint256 count);
    /// @notice The venue's factory has no pool at `pool` for the hop's tokens and fee tier.
    error SwapV3NoPool(address pool);
    /// @notice A router is deployed with at most `max` V3 venues; `count` were given.
    error SwapV3VenueCount(uint256 count, uint256 max);
    /// @notice `caller` called `uniswapV3SwapCallback` but is not the pool this router is swapping with
    /// right now (none outside a V3 hop).
    error SwapV3CallbackRefused(address caller);
    /// @notice The pool filled `filled` of the hop's `wanted` amount (it ran out of liquidity first): the
    /// input of an exact-input hop, the output of an exact-output one. A V3 hop fills completely or not at all.
    error SwapV3PartialFill(uint256 wanted, uint256 filled);
    /// @notice The pool paid nothing for the hop's `amountIn` (too small to move its price): refused,
    /// in a route or a split leg, rather than passing a zero amount on.
    error SwapV3ZeroOutput(address pool, uint256 amountIn);

    /// @notice Venue `index`'s factory and pool init-code hash.
    function v3Venue(uint256 index) external view returns (address factory, bytes32 poolInitCodeHash);

    /// @notice How many V3 venues this router routes through (venue indexes 0 to count - 1).
    function v3VenueCount() external view returns (uint256);

    /// @notice Called by a pool during a SWAP_V3 hop for the input it is owed: pays exactly that, to the
    /// caller. Refused unless the caller is the pool this router computed and is swapping with at this
    /// moment. An exact-input hop pays only its whole input (a partial fill is refused); an exact-output
    /// hop (a route run backwards) pays what the pool asks for the hop's output, by running the hops
    /// before it or from the order's input, never more than the order's maximum in all.
    /// @param amount0Delta What the pool is owed (positive) or paid out (negative) in token0.
    /// @param amount1Delta The same in token1.
    /// @param data The input token and the hop's input, as the router passed them to `swap`.
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external;
}
