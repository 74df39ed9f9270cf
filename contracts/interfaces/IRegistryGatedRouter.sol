// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IRegistryGatedRouter
/// @notice A settlement router's link to the router registry: it settles only while the registry says
/// it may, and only the registry's administrator can recover funds sent to it by mistake.
/// @dev The registry is the one source of truth. Reading it on every swap would cost a cold account
/// and a cold slot (about 5,000 gas); instead the router keeps a copy of its own status in one slot,
/// and the registry makes every router whose status it changes re-read it (`sync()`) in the same
/// transaction. The copy can only ever be what the registry answers, so anyone may call `sync()`.
/// A fresh router has status (not paused, active until 0): it settles nothing until it is activated.
interface IRegistryGatedRouter {
    /// @notice The router copied its status from the registry: it settles while `!paused` and
    /// `block.timestamp < activeUntil`.
    event RouterStatusSynced(uint128 indexed featureId, bool paused, uint64 activeUntil);
    /// @notice The registry administrator moved `amount` of `token` (the native placeholder for ETH),
    /// which had been sent to the router by mistake, to `to`.
    event FundsRescued(address indexed token, address indexed to, uint256 amount);

    /// @notice The router's feature is paused in the registry.
    error SwapFeaturePaused(uint128 featureId);
    /// @notice The router is neither the feature's current router nor its previous router inside the
    /// dwell window (it stopped being so at `activeUntil`, zero if it never was).
    error SwapRouterNotActive(uint128 featureId, uint64 activeUntil);
    /// @notice The router was called again while one of its own settlements was running.
    error SwapReentrantCall();
    /// @notice Only the registry's administrator may do this.
    error SwapOnlyRegistryAdmin(address caller);

    /// @notice Re-reads this router's status from the registry, and the propAMM allowlist's pair filter
    /// (folded to 128 bits) when the router has an allowlist, and stores both in its status slot.
    /// @dev Called by the registry on every activation, pause and unpause that concerns this router
    /// (a sync that fails fails that transition, so the on-chain brake binds in the same block), and by
    /// the PropAmmAllowlist after every change, best-effort (a sync that fails is logged there as
    /// `PropAmmPairFilterSyncFailed` and the router keeps its previous filter copy, which stays safe: see
    /// PropAmmAllowlist). Permissionless: it only copies the registry's and the allowlist's answers, so
    /// calling it again is how a router left behind catches up. Takes the settlement lock: it reverts
    /// with `SwapReentrantCall` inside one of this router's settlements, so one settlement reads one copy.
    /// Emits `RouterStatusSynced`, and `PropAmmPairFilterSynced(filter)` for a router with an allowlist.
    function sync() external;

    /// @notice Moves tokens or ETH that reached the router by mistake. Registry administrator only.
    /// @dev The router holds nothing between transactions, so whatever sits here is a mistake (a
    /// transfer to the wrong address, ETH forced in by selfdestruct). Anyone else touching it would be
    /// theft, so only the administrator of the registry this router answers to may move it.
    /// @param token The ERC20, or the native placeholder for ETH.
    /// @param to Where it goes.
    /// @param amount How much.
    function rescue(address token, address to, uint256 amount) external;

    /// @notice The registry this router answers to.
    /// @return The registry.
    function registry() external view returns (address);

    /// @notice The registry feature this router serves (2 taker-submitted, 3 gasless).
    /// @return The feature id.
    function featureId() external view returns (uint128);

    /// @notice The status last copied from the registry.
    /// @return paused Whether the feature was paused.
    /// @return activeUntil The first timestamp at which this router stops settling.
    function status() external view returns (bool paused, uint64 activeUntil);
}
