// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISwapSettlement} from "./ISwapSettlement.sol";

/// @title IExactOutputSettlement
/// @notice Exact-output orders: the recipient gets at least `buyAmount`, the taker spends at most
/// `maxSellAmount`, and only the input the route needs at execution is taken.
/// @dev The router prices the route backwards from `buyAmount` at the pools' current reserves (the
/// Uniswap V2 `getAmountIn` of each hop, from the last to the first; a FEE action adds its share on
/// top), takes exactly that input, and runs the route forwards. A SPLIT's shares divide the output
/// here, not the input: each leg must produce its share of what the split must yield, and gets the
/// input that needs. An exact-output route has at most one SPLIT, no SWAP_V2 beside it and at most a
/// WRAP before it; its legs deliver to the router. Only SWAP_V2 hops are priced backwards: a SWAP_V3 or
/// SWAP_PROPAMM action or leg hop is refused (SwapExactOutputRoute), since V3's backward pass needs the
/// pool's ticks and propAMMs are exact-input only.
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

    /// @notice `amount` of the native sell value sent with the swap of `quoteId` was not needed and
    /// went back to `taker`.
    event SwapInputRefunded(bytes32 indexed quoteId, address indexed taker, address token, uint256 amount);

    /// @notice The route needs `needed` of the sell token for the signed output; the order allows at
    /// most `maximum`.
    error SwapExcessiveInput(uint256 needed, uint256 maximum);
    /// @notice The action at byte `offset` cannot be priced backwards: a second SPLIT, a SPLIT beside
    /// SWAP_V2 actions, or a swap on a venue other than V2 (SWAP_V3, SWAP_PROPAMM), in a route or a leg.
    error SwapExactOutputRoute(uint256 offset);
}
