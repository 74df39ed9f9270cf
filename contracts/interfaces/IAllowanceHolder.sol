// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IAllowanceHolder
/// @notice The one contract a taker approves for allowance settlement. It never lends its approvals
/// to anyone: inside the taker's own `exec` call it moves exactly the order's sell amount of the
/// caller's sell token to where the route takes its input (the first pair, or the router), then calls
/// the router named in the call. Routers can be migrated without takers approving again, and no
/// router, bug or not, can pull a taker's tokens at all.
/// @dev The operator is named in the taker's own transaction (the API takes it from the router
/// registry); the routers themselves refuse to settle unless the registry says they may. To keep the
/// holder from being a confused deputy (calling a token contract with the holder's own approvals), it
/// only ever calls `transferFrom` on the caller's own tokens and `swapWithAllowance` on the operator,
/// and asks the operator, in a static call, where its route takes its input (`inputDestination`).
/// The router trusts the delivery only because it reads the same order from the same bytes: every
/// field the holder uses must lie inside `data`, never in the 20 bytes it appends.
interface IAllowanceHolder {
    /// @notice `data` does not call the routers' `swapWithAllowance` entry point (`selector` given).
    error AllowanceHolderUnsupportedCall(bytes4 selector);
    /// @notice The order's sell token, sell amount or route could not be read from `data`.
    error AllowanceHolderMalformedCall();
    /// @notice `transferFrom` was called outside an exact-output `exec`, by another caller than its
    /// operator, or for another owner or token than the order's.
    error AllowanceHolderNoAllowance(address caller, address owner, address token);
    /// @notice `transferFrom` asked for `amount`, more than the `remaining` transient allowance.
    error AllowanceHolderAllowanceExceeded(uint256 amount, uint256 remaining);
    /// @notice An exact-output `exec` was entered while another one is running.
    error AllowanceHolderReentrantExec();

    /// @notice Moves the order's `sellAmount` of the caller's `sellToken` to the route's input (where
    /// `operator.inputDestination(actions)` says: the first pair of a route that starts with a V2 hop,
    /// otherwise the operator itself), then calls `operator` with
    /// `data` followed by the caller's address (20 bytes).
    /// @dev `data` must be a `swapWithAllowance(SwapParams)` call, or a
    /// `swapExactOutputWithAllowance(ExactOutputParams)` call, for which nothing is delivered
    /// beforehand: the operator draws the input it needs through `transferFrom` instead. Reading the token, amount and first
    /// pair from the order itself means the delivery can never differ from what the order sells. A
    /// revert in the call is re-thrown as is and undoes the delivery. Not payable: the one entry point
    /// it calls sells ERC20s, so ETH sent here could only be stranded (or, forwarded to a WETH-like
    /// operator, credited to the holder where nothing can move it).
    /// @param operator The router to call.
    /// @param data The router calldata.
    /// @return result The router's return data.
    function exec(address operator, bytes calldata data) external returns (bytes memory result);

    /// @notice Inside an `exec` of a `swapExactOutputWithAllowance(ExactOutputParams)` call, lets its
    /// operator move up to the order's `maxSellAmount` of the order's sell token from the caller of
    /// `exec` to `to`, in one or more calls. The allowance is transient: it ends with the `exec`.
    /// @dev For exact output the holder cannot know beforehand how much the route needs; the router
    /// computes it at execution and draws exactly that, bounded by the maximum the taker sent.
    /// @param token The order's sell token.
    /// @param owner The taker (the caller of `exec`).
    /// @param to Where the input goes (the route's first pair, or the router).
    /// @param amount How much to move.
    function transferFrom(address token, address owner, address to, uint256 amount) external;

    /// @notice What `exec(operator, data)` would deliver: the order's sell token and amount, and where.
    /// @param operator The router.
    /// @param data The router calldata.
    /// @return token The sell token.
    /// @return amount The sell amount.
    /// @return destination Where the operator says the route takes its input.
    function orderOf(address operator, bytes calldata data)
        external
        view
        returns (address token, uint256 amount, address destination);
}
