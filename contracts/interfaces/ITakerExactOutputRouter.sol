// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IExactOutputSettlement} from "./IExactOutputSettlement.sol";
import {ITakerSwapRouter} from "./ITakerSwapRouter.sol";

/// @title ITakerExactOutputRouter
/// @notice Feature 2, second version: the exact-input entry points of ITakerSwapRouter, plus
/// exact-output ones. The taker names the output (`buyAmount`) and the most it pays
/// (`maxSellAmount`); the router takes only the input the route needs at execution.
/// @dev Per settlement:
/// - permit: the taker signs a Permit2 transfer of `maxSellAmount` whose witness binds the order; the
///   router requests only the input needed, so the rest never leaves the taker's wallet;
/// - allowance: the allowance holder grants this router a transient allowance of `maxSellAmount` for
///   the taker's own call; the router draws only the input needed (`IAllowanceHolder.transferFrom`);
/// - native: the taker sends `maxSellAmount` as value; what the route does not need is refunded to
///   the taker in the same transaction (SwapInputRefunded).
interface ITakerExactOutputRouter is IExactOutputSettlement, ITakerSwapRouter {
    /// @notice Buys exactly `params.buyAmount` (or a few units more, from rounding) with at most
    /// `params.maxSellAmount` of an ERC20, by a Permit2 witness signature of `msg.sender`.
    /// @dev Witness: ExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,
    /// uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash). The permitted
    /// amount is `maxSellAmount`, the permit's deadline the order's, its spender this router.
    /// @param params The order.
    /// @param nonce The Permit2 unordered nonce the taker signed.
    /// @param signature The taker's 65-byte signature over the Permit2 typed data.
    /// @return sellAmount The input taken from the taker.
    /// @return buyAmount What the recipient received.
    function swapExactOutputWithPermit(ExactOutputParams calldata params, uint256 nonce, bytes calldata signature)
        external
        returns (uint256 sellAmount, uint256 buyAmount);

    /// @notice Buys `params.buyAmount` with at most `params.maxSellAmount` through the allowance
    /// holder, which appends the taker's address to the calldata. Callable only by the holder.
    /// @param params The order.
    /// @return sellAmount The input taken from the taker.
    /// @return buyAmount What the recipient received.
    function swapExactOutputWithAllowance(ExactOutputParams calldata params)
        external
        returns (uint256 sellAmount, uint256 buyAmount);

    /// @notice Buys `params.buyAmount` with native ETH: `msg.value` must be `params.maxSellAmount`,
    /// and what the route does not need goes back to `msg.sender` before the call returns.
    /// @param params The order; `sellToken` is the native placeholder and the first action wraps.
    /// @return sellAmount The ETH spent (`msg.value` less the refund).
    /// @return buyAmount What the recipient received.
    function swapExactOutputNative(ExactOutputParams calldata params)
        external
        payable
        returns (uint256 sellAmount, uint256 buyAmount);
}
