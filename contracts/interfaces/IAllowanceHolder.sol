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
/// only ever calls `transferFrom` on the caller's own tokens and `swapWithAllowance` on the operator.
/// The router trusts the delivery only because it reads the same order from the same bytes: every
/// field the holder uses must lie inside `data`, never in the 20 bytes it appends.
interface IAllowanceHolder {
    /// @notice `data` does not call the routers' `swapWithAllowance` entry point (`selector` given).
    error AllowanceHolderUnsupportedCall(bytes4 selector);
    /// @notice The order's sell token, sell amount or route could not be read from `data`.
    error AllowanceHolderMalformedCall();

    /// @notice Moves the order's `sellAmount` of the caller's `sellToken` to the route's input (its
    /// first pair when the route starts with a swap, otherwise `operator`), then calls `operator` with
    /// `data` followed by the caller's address (20 bytes).
    /// @dev `data` must be a `swapWithAllowance(SwapParams)` call. Reading the token, amount and first
    /// pair from the order itself means the delivery can never differ from what the order sells. A
    /// revert in the call is re-thrown as is and undoes the delivery. Not payable: the one entry point
    /// it calls sells ERC20s, so ETH sent here could only be stranded (or, forwarded to a WETH-like
    /// operator, credited to the holder where nothing can move it).
    /// @param operator The router to call.
    /// @param data The router calldata.
    /// @return result The router's return data.
    function exec(address operator, bytes calldata data) external returns (bytes memory result);

    /// @notice What `exec(operator, data)` would deliver: the order's sell token and amount, and where.
    /// @param operator The router.
    /// @param data The router calldata.
    /// @return token The sell token.
    /// @return amount The sell amount.
    /// @return destination The route's first pair, or `operator`.
    function orderOf(address operator, bytes calldata data)
        external
        pure
        returns (address token, uint256 amount, address destination);
}
