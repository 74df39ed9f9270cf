// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IRegistryGatedRouter} from "./IRegistryGatedRouter.sol";
import {ISwapSettlement} from "./ISwapSettlement.sol";

/// @title ITakerSwapRouter
/// @notice Feature 2 of the router registry: swaps whose transaction the taker's own wallet sends.
/// @dev Three ways in, one per settlement:
/// - permit: the taker signs a Permit2 transfer whose witness binds the order; the router pulls the
///   sell token through Permit2 with the taker (`msg.sender`) as owner;
/// - allowance: the taker has approved the allowance holder, which calls the router with a transient
///   allowance for exactly this call;
/// - native: the taker sends ETH as `msg.value`.
interface ITakerSwapRouter is ISwapSettlement, IRegistryGatedRouter {
    /// @notice `swapWithAllowance` was called by someone other than the allowance holder.
    error SwapOnlyAllowanceHolder(address caller);

    /// @notice Sells an ERC20 with a Permit2 witness signature by `msg.sender`.
    /// @dev Witness: SwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,
    /// bytes32 quoteId,bytes32 actionsHash), with actionsHash = keccak256(actions). The permit's
    /// deadline is the order's deadline and its spender is this router. Permit2 pays the sell amount to
    /// `inputDestination`, except that a route starting with SWAP_V4 has it paid straight into the
    /// PoolManager, synced to the sell token just before.
    /// @param params The order.
    /// @param nonce The Permit2 unordered nonce the taker signed.
    /// @param signature The taker's 65-byte signature over the Permit2 typed data.
    /// @return buyAmount What the recipient received.
    function swapWithPermit(SwapParams calldata params, uint256 nonce, bytes calldata signature)
        external
        returns (uint256 buyAmount);

    /// @notice Sells an ERC20 through the allowance holder. Callable only by the allowance holder,
    /// which appends the taker's address to the calldata.
    /// @dev Not payable: an allowance swap sells an ERC20, so ETH sent along could only be stranded.
    /// @param params The order.
    /// @return buyAmount What the recipient received.
    function swapWithAllowance(SwapParams calldata params) external returns (uint256 buyAmount);

    /// @notice Sells native ETH sent as `msg.value` (exactly `params.sellAmount`).
    /// @param params The order; `sellToken` is the native placeholder and the first action wraps.
    /// @return buyAmount What the recipient received.
    function swapNative(SwapParams calldata params) external payable returns (uint256 buyAmount);

    /// @notice The allowance holder this router accepts transient allowances from.
    /// @return The allowance holder.
    function allowanceHolder() external view returns (address);

    /// @notice Where a route of `actions` takes its input: the first pair of a route that starts with a
    /// venue paid before its swap call (SWAP_V2), this router otherwise. The allowance holder delivers
    /// an order's sell amount there, so it needs to know no route format.
    /// @param actions The route's packed actions.
    /// @return destination The address the sell token must be delivered to.
    function inputDestination(bytes calldata actions) external view returns (address destination);
}
