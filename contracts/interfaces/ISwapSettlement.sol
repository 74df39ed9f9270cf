// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title ISwapSettlement
/// @notice What every settlement router shares: the order a taker signs or sends, the settlement
/// event indexers follow, and the errors a failed swap explains itself with.
/// @dev A swap delivers `sellAmount` of `sellToken` into the route, runs the route `actions` in
/// order, then settles: the route must end holding `buyToken`, and the recipient must receive at
/// least `minBuyAmount` of it. Settlement is not an action, so no route can skip it.
///
/// Route actions are packed back to back, each one opcode byte followed by fixed-size operands:
/// - `0x01` SWAP_V2: pair (20 bytes), tokenOut (20 bytes), pool fee in bps (2 bytes). Swaps the whole
///   running amount through a Uniswap-V2-style pair. The pair must be the router's configured
///   factory's pair of (running token, tokenOut), and the fee must be that venue's pool fee. Its output goes straight to the next action's pair
///   when the next action is also a swap, to the recipient when it is the last action, else to the router.
/// - `0x02` WRAP: wraps the running native amount into WETH.
/// - `0x03` UNWRAP: unwraps the running WETH amount into native ETH.
/// - `0x04` FEE: bps (2 bytes), fee recipient (20 bytes). Pays `amount * bps / 10000` of the running
///   amount to the fee recipient and keeps the rest running. The running token must be the buy token,
///   so the fee in `SwapSettled` is always in buy-token units.
/// - `0x05` SPLIT: leg count (1 byte, 2 or 3), then per leg: share in bps (2 bytes), hop count (1 byte,
///   1 to 3) and that many hops, each a whole swap action with its opcode (SWAP_V2, SWAP_V3,
///   SWAP_PROPAMM or SWAP_V4), so a leg may mix venues. Sells
///   the running amount along parallel paths: every leg but the last takes `amount * share / 10000`,
///   the last takes the rest, so nothing is left over. The shares must be non-zero and add up to
///   10,000, and every leg must end in the same token, which becomes the running token with the legs'
///   summed output. Each leg's hops obey their own opcode's rules. When SPLIT is the last action and ends in the
///   buy token, every leg pays the recipient directly; otherwise the output collects in the router.
///   A large order loses less to price impact across several pools than through one, and settling all
///   legs in one transaction keeps one minimum check over their total.
/// - `0x06` SWAP_V3: tokenOut (20 bytes), pool fee tier (uint24, 3 bytes), venue index (1 byte). Swaps the
///   whole running amount through the pool the router computes from its V3 venue `venue` (see
///   IUniswapV3Venue); the pool must take all of it. Exact-output routes run it backwards (IExactOutputSettlement).
/// - `0x07` SWAP_PROPAMM: pair (20 bytes), tokenOut (20 bytes). Reserved for the propAMM venue module;
///   refused as an unknown action by routers without it.
/// - `0x08` SWAP_V4: tokenOut (20 bytes), fee (uint24, 3 bytes), tickSpacing (int24, two's complement, 3
///   bytes), hooks (20 bytes). Swaps the whole running amount through the Uniswap V4 pool (sorted running
///   token and tokenOut, fee, tickSpacing, hooks) of the router's PoolManager (IUniswapV4Venue); the pool
///   must take all of it. A tokenOut of address zero is native ETH (V4's currency zero): the running token
///   becomes the native asset, as after UNWRAP, and a native running token is paid to the PoolManager as
///   value (no WRAP). Consecutive SWAP_V4 actions run in one unlock, settling the input and taking the
///   output once each. Exact-output routes run a path's leading SWAP_V4 hops backwards
///   (IExactOutputSettlement). Routers without a PoolManager refuse it as an unknown action.
/// The native asset is written as 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE.
interface ISwapSettlement {
    /// @notice The order. With permit settlement every field is bound by the taker's signature.
    struct SwapParams {
        address sellToken;
        uint256 sellAmount;
        address buyToken;
        uint256 minBuyAmount;
        address recipient;
        uint256 deadline;
        bytes32 quoteId;
        bytes actions;
    }

    /// @notice A swap filled. `buyAmount` is what the recipient received, after `feeAmount` (the
    /// platform fee, in the buy token) was paid.
    event SwapSettled(
        bytes32 indexed quoteId,
        address indexed taker,
        address indexed recipient,
        address sellToken,
        uint256 sellAmount,
        address buyToken,
        uint256 buyAmount,
        uint256 feeAmount
    );

    /// @notice A native payout to `to` failed (the recipient reverted or needed more than the payout
    /// gas), so `amount` was paid as WETH instead.
    event NativePayoutWrapped(address indexed to, uint256 amount);

    /// @notice The order's deadline has passed.
    error SwapDeadlineExpired(uint256 deadline, uint256 timestamp);
    /// @notice The recipient would receive less than the signed minimum.
    error SwapInsufficientOutput(uint256 received, uint256 minimum);
    /// @notice A permit signature must be exactly 65 bytes (r, s, v); compact 64-byte signatures are refused.
    error SwapInvalidSignatureLength(uint256 length);
    /// @notice The action at byte `offset` has an unknown opcode.
    error SwapUnknownAction(uint8 opcode, uint256 offset);
    /// @notice The action at byte `offset` is cut short.
    error SwapTruncatedAction(uint256 offset);
    /// @notice A route may hold at most `max` actions.
    error SwapTooManyActions(uint256 max);
    /// @notice An action needs `expected` as its input token but the route holds `actual`.
    error SwapUnexpectedToken(address expected, address actual);
    /// @notice A native sell must send exactly `sellAmount` as value; other sells send none.
    error SwapNativeValueMismatch(uint256 expected, uint256 sent);
    /// @notice Native ETH could not be delivered to `to`.
    error SwapNativeTransferFailed(address to, uint256 amount);
    /// @notice The recipient or another required address is zero.
    error SwapZeroAddress();
    /// @notice The recipient is the router itself, where the output would be stranded.
    error SwapRecipientIsRouter();
    /// @notice A native sell must use `swapNative` with the amount as `msg.value`.
    error SwapNativeSellNeedsValue();
    /// @notice A fee above 100 % was requested.
    error SwapFeeTooHigh(uint256 bps);
    /// @notice A SWAP_V2 action names `pair`, but the configured factory's pair of its tokens is `expected`.
    error SwapUnknownPair(address pair, address expected);
    /// @notice The SPLIT at byte `offset` has `legs` legs; a split needs 2 or 3.
    error SwapSplitLegCount(uint256 offset, uint256 legs);
    /// @notice A leg of the SPLIT at byte `offset` has `hops` hops; a leg needs 1 to 3.
    error SwapSplitHopCount(uint256 offset, uint256 hops);
    /// @notice The legs of the SPLIT at byte `offset` have shares adding up to `totalBps`, or one of
    /// them is zero; the shares must be non-zero and add up to exactly 10,000.
    error SwapSplitShares(uint256 offset, uint256 totalBps);
    /// @notice A hop of a split leg would pay nothing for `amountIn` through `pair`: the leg's share of
    /// the amount is too small to trade; route the order without that leg.
    error SwapSplitLegTooSmall(address pair, uint256 amountIn);
    /// @notice A SWAP_V2 action states a pool fee of `stated` bps; the venue's pairs charge `expected`.
    error SwapPoolFeeMismatch(uint256 stated, uint256 expected);
}
