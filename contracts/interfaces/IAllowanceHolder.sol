// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IAllowanceHolder
/// @notice The one contract a taker approves for allowance settlement. It never keeps a standing
/// allowance for any router: `exec` grants the router a transient allowance (EIP-1153) that lives for
/// exactly one call, so routers can be migrated without takers approving again, and a router bug
/// cannot reach funds outside the call a taker made.
/// @dev The operator is named in the taker's own transaction (the API takes it from the router
/// registry). The holder does not consult the registry itself: that read costs more gas than the whole
/// margin to Uniswap's routers, while the allowance is already bounded to one call and one amount.
/// To keep the holder from being a confused deputy (calling a token contract with the holder's own
/// approvals), it only ever invokes the routers' `swapWithAllowance` entry point, which no token has.
interface IAllowanceHolder {
    /// @notice `data` does not call the routers' `swapWithAllowance` entry point (`selector` given).
    error AllowanceHolderUnsupportedCall(bytes4 selector);
    /// @notice The transient allowance of `operator` over `owner`'s `token` is `available`, below `requested`.
    error AllowanceHolderInsufficientAllowance(address operator, address owner, address token, uint256 available, uint256 requested);

    /// @notice The order's `sellToken`/`sellAmount` could not be read from `data`.
    error AllowanceHolderMalformedCall();

    /// @notice Grants `operator` a transient allowance over the caller's tokens for exactly the order in
    /// `data` (its sellAmount of its sellToken), then calls `operator` with `data` followed by the
    /// caller's address (20 bytes), forwarding `msg.value`.
    /// @dev `data` must be a `swapWithAllowance(SwapParams)` call. Reading the token and amount from the
    /// order itself means the allowance can never differ from what the order sells. The allowance is
    /// cleared when the call returns; a revert in the call is re-thrown as is.
    /// @param operator The router to call.
    /// @param data The router calldata.
    /// @return result The router's return data.
    function exec(address operator, bytes calldata data) external payable returns (bytes memory result);

    /// @notice Moves `amount` of `owner`'s `token` to `recipient`, spending the caller's transient allowance.
    /// @param token The token.
    /// @param owner The taker whose tokens move.
    /// @param recipient Where they go.
    /// @param amount How much.
    function transferFrom(address token, address owner, address recipient, uint256 amount) external;

    /// @notice The transient allowance of `operator` over `owner`'s `token` (zero outside `exec`).
    /// @param operator The router.
    /// @param owner The taker.
    /// @param token The token.
    /// @return The remaining allowance.
    function allowance(address operator, address owner, address token) external view returns (uint256);
}
