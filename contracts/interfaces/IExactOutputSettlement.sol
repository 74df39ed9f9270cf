// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISwapSettlement} from "./ISwapSettlement.sol";

/// @title IExactOutputSettlement
/// @notice Exact-output orders: the recipient gets at least `buyAmount`, the taker spends at most
/// `maxSellAmount`, and only the input the route needs at execution is taken.
/// @dev A route of SWAP_V2 hops is priced backwards from `buyAmount` at the pools' current reserves
/// (the Uniswap V2 `getAmountIn` of each hop, from the last to the first; a FEE action adds its share
/// on top): the router takes exactly that input and runs the route forwards. A route with a SWAP_V3
/// or SWAP_V4 hop or a SPLIT is run backwards instead: the router takes the order's whole
/// `maxSellAmount`, each swap is an exact-output swap (a V3 pool's callback pays exactly what the pool
/// asks, a V2 pair is paid its `getAmountIn`, a path's leading V4 hops run backwards in one unlock),
/// paid for by the swaps before it and the first from that input, never more
/// than the maximum in all; the unused input goes back to the taker (SwapInputRefunded). Its swaps (or
/// its SPLIT) are one run, with at most a WRAP before them and only FEE and UNWRAP after. A SPLIT's
/// shares divide the output, not the input: each leg must produce its share of what the split must
/// yield. An exact-output route has at most one SPLIT and no other swap beside it. SWAP_PROPAMM is
/// refused anywhere in an exact-output route (SwapExactOutputRoute): propAMMs are exact-input only. A
/// SWAP_V4 hop must lead its path or SPLIT leg (only V4 hops before it), and needs a router whose V4
/// venue is revision 2 or later (IUniswapV4Venue's `v4Revision`).
/// The struct has the same ABI layout as `SwapParams` (with `maxSellAmount` and `buyAmount` in the
/// places of `sellAmount` and `minBuyAmount`), so the allowance holder reads both the same way.
interface IExactOutputSettlement is ISwapSettlement {
    /// @notice An exact-output order. With permit and gasless settlement every field is bound by the
    /// taker's signature: `maxSellAmount` is also the Permit2 permitted amount.
    struct ExactOutputParams {
        address sellToken;
        uint256 maxSellAmount;
        address buyToken;
        uint256 buyAmount;
        address recipient;
        uint256 deadline;
        bytes32 quoteId;
        bytes actions;
    }

    /// @notice `amount` of the sell input (the native value sent, or the maximum a route run backwards
    /// took) of the swap of `quoteId` was not needed and went back to `taker`.
    event SwapInputRefunded(bytes32 indexed quoteId, address indexed taker, address token, uint256 amount);

    /// @notice The route needs `needed` of the sell token for the signed output; the order allows at
    /// most `maximum`.
    error SwapExcessiveInput(uint256 needed, uint256 maximum);
    /// @notice The action at byte `offset` (of the route, or of a split leg or the route's run of swaps)
    /// cannot run in an exact-output route: a second SPLIT, a SPLIT beside other swaps, swaps of a route
    /// run backwards that are not one run after at most a WRAP, a SWAP_PROPAMM (exact-input only), or
    /// another venue's hop before a SWAP_V4 in its run or leg (V4 hops run backwards only first).
    error SwapExactOutputRoute(uint256 offset);
}
