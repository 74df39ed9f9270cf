// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IRouterRegistry
/// @notice Tells clients which router is active for each feature id (2 = taker-submitted swap,
/// 3 = gasless swap). Clients discover routers here instead of hardcoding them, so a router can be
/// replaced without a client release.
/// @dev A feature's state is (previous, current, next, paused). The "owner" of a feature is the
/// router currently assigned to it, never the registry administrator. A migration stages a router as
/// `next`, then activates it: the old current router becomes `previous` and stays accepted for a dwell
/// window, so transactions built against it just before the switch still have a home.
interface IRouterRegistry {
    /// @notice Thrown when a feature id does not fit in 128 bits (ids are uint128 everywhere else).
    error RouterRegistryFeatureIdTooLarge(uint256 featureId);
    /// @notice Thrown when a paused feature is asked for a router, or paused again.
    error RouterRegistryFeaturePaused(uint128 featureId);
    /// @notice Thrown when unpausing a feature that is not paused.
    error RouterRegistryFeatureNotPaused(uint128 featureId);
    /// @notice Thrown when a feature has never been activated, so it has no current router.
    error RouterRegistryFeatureNotInitialized(uint128 featureId);
    /// @notice Thrown when a feature has no previous router.
    error RouterRegistryNoPreviousRouter(uint128 featureId);
    /// @notice Thrown when the previous router's dwell window ended at `closedAt`.
    error RouterRegistryDwellWindowClosed(uint128 featureId, uint64 closedAt);
    /// @notice Thrown when activating a feature that has no staged router.
    error RouterRegistryNothingStaged(uint128 featureId);
    /// @notice Thrown when staging an address that holds no code: a router must already be deployed.
    error RouterRegistryNotAContract(address router);
    /// @notice Thrown when staging the router that is already current for the feature.
    error RouterRegistryAlreadyCurrent(uint128 featureId, address router);
    /// @notice Thrown when a caller lacks the role an operation needs.
    error RouterRegistryUnauthorized(address caller);
    /// @notice Thrown when a dwell length exceeds `maxDwell`.
    error RouterRegistryDwellTooLong(uint64 dwell, uint64 maxDwell);
    /// @notice Thrown when the zero address is given where an account is required.
    error RouterRegistryZeroAddress();
    /// @notice Thrown when a router whose state changed could not take in the change (its `sync()` reverted).
    /// @dev Refusing the whole transition keeps the registry and the routers' on-chain brakes in step.
    error RouterRegistrySyncFailed(address router);

    /// @notice A router was staged as the feature's next router, replacing `replaced` (zero if none).
    event RouterStaged(uint128 indexed featureId, address indexed router, address replaced);
    /// @notice A staged router was withdrawn before activation.
    event RouterUnstaged(uint128 indexed featureId, address indexed router);
    /// @notice `current` became the feature's router; `previous` stays accepted until `dwellUntil`
    /// (both zero on a feature's first activation).
    event RouterActivated(
        uint128 indexed featureId,
        address indexed current,
        address indexed previous,
        uint64 dwellUntil
    );
    /// @notice The feature was paused by `by`; `current` is the router that stopped being active.
    event FeaturePaused(uint128 indexed featureId, address indexed current, address by);
    /// @notice The feature was unpaused; `current` is active again.
    event FeatureUnpaused(uint128 indexed featureId, address indexed current);
    /// @notice The dwell length for future activations changed.
    event DwellUpdated(uint64 previousDwell, uint64 newDwell);
    /// @notice `proposed` may accept the administrator role.
    event AdminProposed(address indexed admin, address indexed proposed);
    /// @notice The administrator role moved from `previousAdmin` to `newAdmin`.
    event AdminTransferred(address indexed previousAdmin, address indexed newAdmin);
    /// @notice `account` gained (`enabled`) or lost the pauser role.
    event PauserUpdated(address indexed account, bool enabled);

    /// @notice The feature's current router: the "owner" of the feature.
    /// @dev Selector 0x6352211e. Reverts when the feature is paused or uninitialized, or when the id
    /// exceeds 2^128-1.
    /// @param featureId The feature id.
    /// @return router The active router.
    function ownerOf(uint256 featureId) external view returns (address router);

    /// @notice The previous router, accepted while its migration dwell window is open.
    /// @dev Selector 0xe2603dc2. Reverts when none is set, when the window has closed, or when the
    /// feature is paused (a paused feature accepts no router at all).
    /// @param featureId The feature id.
    /// @return router The previous router.
    function prev(uint128 featureId) external view returns (address router);

    /// @notice The staged next router, or the zero address when none is staged.
    /// @dev Selector 0x74bcde51.
    /// @param featureId The feature id.
    /// @return router The staged router.
    function next(uint128 featureId) external view returns (address router);

    /// @notice The whole state of a feature in one call.
    /// @dev Selector 0x46df01a4. `previous` reads as zero once its dwell window has closed.
    /// @param featureId The feature id.
    /// @return previous The previous router while its window is open, else zero.
    /// @return current The current router (zero if never activated).
    /// @return staged The staged next router (zero if none).
    /// @return paused Whether the feature is paused.
    function getFeature(uint128 featureId)
        external
        view
        returns (address previous, address current, address staged, bool paused);

    /// @notice Whether `router` may settle for the feature, as the router itself enforces it.
    /// @dev The routers copy this into their own storage when the registry tells them to (`sync()` on
    /// every activation, pause and unpause), so a swap reads one of their own slots instead of calling
    /// here. `activeUntil` is `type(uint64).max` for the current router, the dwell deadline for the
    /// previous one, and zero for any other address (staged, retired or unknown).
    /// @param featureId The feature id.
    /// @param router The router asking.
    /// @return paused Whether the feature is paused.
    /// @return activeUntil The first timestamp at which `router` no longer settles.
    function statusOf(uint128 featureId, address router) external view returns (bool paused, uint64 activeUntil);

    /// @notice When the previous router's dwell window closes (zero if there is no previous router).
    /// @param featureId The feature id.
    /// @return closesAt Unix time at which `prev` starts reverting.
    function dwellDeadline(uint128 featureId) external view returns (uint64 closesAt);

    /// @notice Stages `router` as the feature's next router. Administrator only.
    /// @dev The router must already hold code, so a typo cannot brick a feature on activation.
    /// @param featureId The feature id.
    /// @param router The router to stage.
    function stage(uint128 featureId, address router) external;

    /// @notice Withdraws the staged router of a feature. Administrator only.
    /// @param featureId The feature id.
    function unstage(uint128 featureId) external;

    /// @notice Makes the staged router current. Administrator only.
    /// @dev The outgoing router becomes `previous` for `dwell()` seconds. On a feature's first
    /// activation there is no outgoing router, so `previous` stays empty. The incoming, outgoing and
    /// displaced previous routers are told to `sync()` in the same transaction, so the change binds on
    /// chain in the block it is mined in.
    /// @param featureId The feature id.
    function activate(uint128 featureId) external;

    /// @notice Halts a feature: `ownerOf` and `prev` revert until it is unpaused.
    /// @dev Pausers or the administrator. A pauser can only stop things, so a hot key can hold it.
    /// The current and previous routers are told to `sync()` in the same transaction: from the next
    /// instruction on they refuse to settle, whoever calls them.
    /// @param featureId The feature id.
    function pause(uint128 featureId) external;

    /// @notice Resumes a paused feature. Administrator only. The current and previous routers sync.
    /// @param featureId The feature id.
    function unpause(uint128 featureId) external;

    /// @notice Sets the dwell length used by future activations. Administrator only.
    /// @param newDwell Seconds a previous router stays accepted after an activation.
    function setDwell(uint64 newDwell) external;

    /// @notice Grants or revokes the pauser role. Administrator only.
    /// @param account The account.
    /// @param enabled Whether `account` may pause features.
    function setPauser(address account, bool enabled) external;

    /// @notice First step of moving the administrator role: names the account that may accept it.
    /// @dev Proposing the zero address cancels a pending proposal.
    /// @param proposed The proposed administrator.
    function proposeAdmin(address proposed) external;

    /// @notice Second step: the proposed account takes the administrator role.
    function acceptAdmin() external;

    /// @notice The registry administrator.
    /// @return The administrator.
    function admin() external view returns (address);

    /// @notice The account that may accept the administrator role, or zero.
    /// @return The proposed administrator.
    function pendingAdmin() external view returns (address);

    /// @notice Whether `account` holds the pauser role.
    /// @param account The account.
    /// @return Whether it may pause.
    function isPauser(address account) external view returns (bool);

    /// @notice Seconds a previous router stays accepted after an activation.
    /// @return The dwell length.
    function dwell() external view returns (uint64);
}
