// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IRegistryGatedRouter} from "../interfaces/IRegistryGatedRouter.sol";

/// @title RouterRegistry
/// @notice Per-feature router assignments with staged migrations, a dwell window for the outgoing
/// router, and an emergency pause.
/// @dev Roles: one administrator (moved in two steps) who does everything, and any number of pausers
/// who can only pause. Read functions never loop, so their cost is constant.
contract RouterRegistry is IRouterRegistry {
    /// @dev Packed so that `ownerOf` reads one slot and `prev` reads one slot.
    struct Feature {
        address previous;
        uint64 previousUntil;
        address current;
        bool paused;
        address staged;
    }

    /// @notice Dwell length used until the administrator changes it.
    uint64 public constant DEFAULT_DWELL = 1 hours;
    /// @notice Upper bound on the dwell, so a mistyped value cannot keep an old router alive for years.
    uint64 public constant MAX_DWELL = 30 days;

    /// @inheritdoc IRouterRegistry
    address public admin;
    /// @inheritdoc IRouterRegistry
    address public pendingAdmin;
    /// @inheritdoc IRouterRegistry
    uint64 public dwell;
    /// @inheritdoc IRouterRegistry
    mapping(address account => bool enabled) public isPauser;

    mapping(uint128 featureId => Feature) private _features;

    modifier onlyAdmin() {
        if (msg.sender != admin) revert RouterRegistryUnauthorized(msg.sender);
        _;
    }

    /// @param initialAdmin The first administrator.
    constructor(address initialAdmin) {
        if (initialAdmin == address(0)) revert RouterRegistryZeroAddress();
        admin = initialAdmin;
        dwell = DEFAULT_DWELL;
        emit AdminTransferred(address(0), initialAdmin);
        emit DwellUpdated(0, DEFAULT_DWELL);
    }

    /// @inheritdoc IRouterRegistry
    function ownerOf(uint256 featureId) external view returns (address router) {
        if (featureId > type(uint128).max) revert RouterRegistryFeatureIdTooLarge(featureId);
        uint128 id = uint128(featureId);
        Feature storage feature = _features[id];
        if (feature.paused) revert RouterRegistryFeaturePaused(id);
        router = feature.current;
        if (router == address(0)) revert RouterRegistryFeatureNotInitialized(id);
    }

    /// @inheritdoc IRouterRegistry
    function prev(uint128 featureId) external view returns (address router) {
        Feature storage feature = _features[featureId];
        if (feature.paused) revert RouterRegistryFeaturePaused(featureId);
        router = feature.previous;
        if (router == address(0)) revert RouterRegistryNoPreviousRouter(featureId);
        if (block.timestamp >= feature.previousUntil) {
            revert RouterRegistryDwellWindowClosed(featureId, feature.previousUntil);
        }
    }

    /// @inheritdoc IRouterRegistry
    function next(uint128 featureId) external view returns (address router) {
        router = _features[featureId].staged;
    }

    /// @inheritdoc IRouterRegistry
    function getFeature(uint128 featureId)
        external
        view
        returns (address previous, address current, address staged, bool paused)
    {
        Feature storage feature = _features[featureId];
        if (block.timestamp < feature.previousUntil) previous = feature.previous;
        current = feature.current;
        staged = feature.staged;
        paused = feature.paused;
    }

    /// @inheritdoc IRouterRegistry
    function statusOf(uint128 featureId, address router) external view returns (bool paused, uint64 activeUntil) {
        Feature storage feature = _features[featureId];
        paused = feature.paused;
        if (router == address(0)) return (paused, 0);
        if (router == feature.current) return (paused, type(uint64).max);
        if (router == feature.previous) return (paused, feature.previousUntil);
    }

    /// @inheritdoc IRouterRegistry
    function dwellDeadline(uint128 featureId) external view returns (uint64 closesAt) {
        closesAt = _features[featureId].previousUntil;
    }

    /// @inheritdoc IRouterRegistry
    function stage(uint128 featureId, address router) external onlyAdmin {
        if (router.code.length == 0) revert RouterRegistryNotAContract(router);
        Feature storage feature = _features[featureId];
        if (router == feature.current) revert RouterRegistryAlreadyCurrent(featureId, router);
        address replaced = feature.staged;
        feature.staged = router;
        emit RouterStaged(featureId, router, replaced);
    }

    /// @inheritdoc IRouterRegistry
    function unstage(uint128 featureId) external onlyAdmin {
        Feature storage feature = _features[featureId];
        address router = feature.staged;
        if (router == address(0)) revert RouterRegistryNothingStaged(featureId);
        feature.staged = address(0);
        emit RouterUnstaged(featureId, router);
    }

    /// @inheritdoc IRouterRegistry
    function activate(uint128 featureId) external onlyAdmin {
        Feature storage feature = _features[featureId];
        address incoming = feature.staged;
        if (incoming == address(0)) revert RouterRegistryNothingStaged(featureId);
        address outgoing = feature.current;
        address displaced = feature.previous;
        uint64 until;
        if (outgoing != address(0)) {
            until = uint64(block.timestamp) + dwell;
        }
        feature.previous = outgoing;
        feature.previousUntil = until;
        feature.current = incoming;
        feature.staged = address(0);
        emit RouterActivated(featureId, incoming, outgoing, until);
        _sync(incoming);
        _sync(outgoing);
        if (displaced != incoming) _sync(displaced);
    }

    /// @inheritdoc IRouterRegistry
    function pause(uint128 featureId) external {
        if (msg.sender != admin && !isPauser[msg.sender]) revert RouterRegistryUnauthorized(msg.sender);
        Feature storage feature = _features[featureId];
        if (feature.paused) revert RouterRegistryFeaturePaused(featureId);
        feature.paused = true;
        emit FeaturePaused(featureId, feature.current, msg.sender);
        _sync(feature.current);
        _sync(feature.previous);
    }

    /// @inheritdoc IRouterRegistry
    function unpause(uint128 featureId) external onlyAdmin {
        Feature storage feature = _features[featureId];
        if (!feature.paused) revert RouterRegistryFeatureNotPaused(featureId);
        feature.paused = false;
        emit FeatureUnpaused(featureId, feature.current);
        _sync(feature.current);
        _sync(feature.previous);
    }

    /// @inheritdoc IRouterRegistry
    function setDwell(uint64 newDwell) external onlyAdmin {
        if (newDwell > MAX_DWELL) revert RouterRegistryDwellTooLong(newDwell, MAX_DWELL);
        uint64 previousDwell = dwell;
        dwell = newDwell;
        emit DwellUpdated(previousDwell, newDwell);
    }

    /// @inheritdoc IRouterRegistry
    function setPauser(address account, bool enabled) external onlyAdmin {
        if (account == address(0)) revert RouterRegistryZeroAddress();
        isPauser[account] = enabled;
        emit PauserUpdated(account, enabled);
    }

    /// @inheritdoc IRouterRegistry
    function proposeAdmin(address proposed) external onlyAdmin {
        pendingAdmin = proposed;
        emit AdminProposed(msg.sender, proposed);
    }

    /// @inheritdoc IRouterRegistry
    function acceptAdmin() external {
        // No transaction comes from the zero address, so an empty proposal matches no caller.
        if (msg.sender != pendingAdmin) revert RouterRegistryUnauthorized(msg.sender);
        address previousAdmin = admin;
        admin = msg.sender;
        pendingAdmin = address(0);
        emit AdminTransferred(previousAdmin, msg.sender);
    }

    /// @dev Tells `router` to copy its status (`statusOf`) into its own storage, after the state it
    /// reads is final (checks-effects-interactions). A router that cannot take the change in fails the
    /// whole transition: a pause that the routers ignore would be worse than one that visibly fails.
    /// Only administrator-staged routers are ever called, so none of them can block another's sync.
    function _sync(address router) private {
        if (router == address(0)) return;
        try IRegistryGatedRouter(router).sync() {
            return;
        } catch {
            revert RouterRegistrySyncFailed(router);
        }
    }
}
