// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IRegistryGatedRouter} from "../interfaces/IRegistryGatedRouter.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";

/// @title RegistryGate
/// @notice Decides whether a router may settle right now: only outside another settlement of its own
/// (re-entrancy lock) and only while the registry says it is active (status copy).
/// @dev The status is one slot, read cold once per swap (2,100 gas) and written only by `sync()`. The
/// same slot keeps the router's copy of its propAMM pair filter (`_syncPairFilter`), so the pair rule
/// reads no other account on the hot path. The lock is one transient slot (EIP-1153), set on entry and
/// cleared on exit, so several swaps in one transaction (a smart wallet's batch) still work.
abstract contract RegistryGate is IRegistryGatedRouter {
    /// @dev keccak256("RegistryGate.lock") - 1: a transient slot no Solidity variable can collide with.
    uint256 private constant LOCK_SLOT = 0xadb3926339d54caaa2ef40d36228586b5a539d182ece25b1c86f92c95c6d5592;

    /// @dev One slot: bits 0-7 paused, 8-71 activeUntil, 72-199 the pair filter copy (`_pairFilterCopy`).
    struct Status {
        bool paused;
        uint64 activeUntil;
        uint128 pairFilter;
    }

    IRouterRegistry private immutable _registry;
    uint128 private immutable _featureId;
    Status private _status;

    /// @param registry_ The registry this router answers to.
    /// @param featureId_ The feature it serves there.
    constructor(IRouterRegistry registry_, uint128 featureId_) {
        _registry = registry_;
        _featureId = featureId_;
    }

    /// @inheritdoc IRegistryGatedRouter
    /// @dev Locked: the copy never changes while a settlement of this router runs, so every check of
    /// one settlement reads the same filter.
    function sync() external locked {
        (bool paused, uint64 activeUntil) = _registry.statusOf(_featureId, address(this));
        uint128 pairFilter = _syncPairFilter();
        _status = Status({paused: paused, activeUntil: activeUntil, pairFilter: pairFilter});
        emit RouterStatusSynced(_featureId, paused, activeUntil);
    }

    /// @inheritdoc IRegistryGatedRouter
    function registry() external view returns (address) {
        return address(_registry);
    }

    /// @inheritdoc IRegistryGatedRouter
    function featureId() external view returns (uint128) {
        return _featureId;
    }

    /// @inheritdoc IRegistryGatedRouter
    function status() external view returns (bool paused, uint64 activeUntil) {
        Status memory current = _status;
        return (current.paused, current.activeUntil);
    }

    /// @dev The pair filter to keep with the status on `sync()` (PropAmmHops implements it; a router
    /// without an allowlist keeps none).
    function _syncPairFilter() internal virtual returns (uint128);

    /// @dev The pair filter copied at the last `sync()` (bit `uint160(account) & 127` set: maybe a pair).
    /// The status slot is warm on the hot path (read by `settles`), so this costs about 100 gas.
    function _pairFilterCopy() internal view returns (uint256 filter) {
        assembly ("memory-safe") {
            filter := shr(72, sload(_status.slot))
        }
    }

    /// @dev Settlement entry points: locked against re-entry, and refused unless the registry status
    /// allows settling, before any token moves.
    modifier settles() {
        _lockAndCheckActive();
        _;
        _unlock();
    }

    /// @dev Other state-changing entry points (rescue): locked, so they cannot run inside a swap.
    modifier locked() {
        _lock();
        _;
        _unlock();
    }

    function _lock() private {
        bool entered;
        assembly ("memory-safe") {
            entered := tload(LOCK_SLOT)
        }
        if (entered) revert SwapReentrantCall();
        assembly ("memory-safe") {
            tstore(LOCK_SLOT, 1)
        }
    }

    function _unlock() private {
        assembly ("memory-safe") {
            tstore(LOCK_SLOT, 0)
        }
    }

    /// @dev The lock, then the on-chain brake: one tload, one tstore and one sload on the hot path.
    function _lockAndCheckActive() private {
        bool entered;
        bool paused;
        uint64 activeUntil;
        assembly ("memory-safe") {
            entered := tload(LOCK_SLOT)
            tstore(LOCK_SLOT, 1)
            let packed := sload(_status.slot)
            paused := and(packed, 0xff)
            activeUntil := and(shr(8, packed), 0xffffffffffffffff)
        }
        if (entered) revert SwapReentrantCall();
        if (paused) revert SwapFeaturePaused(_featureId);
        if (block.timestamp >= activeUntil) revert SwapRouterNotActive(_featureId, activeUntil);
    }

    /// @dev Recovery is the registry administrator's, whoever that is at the time of the call.
    function _checkRegistryAdmin() internal view {
        if (msg.sender != _registry.admin()) revert SwapOnlyRegistryAdmin(msg.sender);
    }
}
