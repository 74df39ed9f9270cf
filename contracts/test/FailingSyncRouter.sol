// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title FailingSyncRouter
/// @notice Test-only stand-in for a registry router whose `sync()` can be made to fail: revert with a
/// custom error, revert with a large return-data bomb, or burn all its gas. It syncs normally until told
/// otherwise, so the registry can activate it. Never deployed by the devnet.
contract FailingSyncRouter {
    /// @notice How `sync()` behaves: 0 succeed, 1 revert, 2 revert with `bombBytes` of data, 3 burn all gas.
    uint8 public mode;
    /// @notice How many times `sync()` succeeded.
    uint256 public syncs;

    /// @notice The router was synced.
    event FailingSyncRouterSynced(uint256 syncs);

    /// @notice `sync()` was told to fail.
    error FailingSyncRouterRefused(uint256 code);

    /// @notice Sets how `sync()` behaves.
    /// @param mode_ See `mode`.
    function setMode(uint8 mode_) external {
        mode = mode_;
    }

    /// @notice Succeeds, or fails as `mode` says.
    function sync() external {
        uint8 current = mode;
        if (current == 1) revert FailingSyncRouterRefused(42);
        if (current == 2) {
            // Not memory-safe on purpose: it returns memory beyond what was allocated.
            assembly {
                revert(0, 100000)
            }
        }
        if (current == 3) {
            // solhint-disable-next-line no-empty-blocks
            while (gasleft() > 0) {}
        }
        ++syncs;
        emit FailingSyncRouterSynced(syncs);
    }
}
