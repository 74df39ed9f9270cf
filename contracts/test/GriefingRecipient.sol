// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IRegistryGatedRouter} from "../interfaces/IRegistryGatedRouter.sol";
import {ISwapSettlement} from "../interfaces/ISwapSettlement.sol";
import {ITakerSwapRouter} from "../interfaces/ITakerSwapRouter.sol";

/// @title GriefingRecipient
/// @notice Test-only payee that misbehaves when it receives ETH, in the ways a hostile swap recipient
/// or fee recipient can: revert, burn all gas, answer with a huge return-data bomb, or re-enter the
/// router that pays it. Never deployed by the devnet.
contract GriefingRecipient {
    /// @notice How `receive` behaves.
    enum Mode {
        Accept,
        Revert,
        BurnGas,
        ReturnBomb,
        Reenter,
        ReenterRescue
    }

    /// @notice The current behaviour.
    Mode public mode;
    /// @notice The router `Reenter` calls back with a `swapNative` order (`ReenterRescue`: with a `rescue`).
    address public reentryTarget;
    /// @notice The first four bytes of the revert the last re-entry attempt got (nonzero seed so the
    /// write inside a gas-limited payout is cheap).
    bytes4 public lastReentryError = 0xffffffff;

    /// @notice Refused on purpose, so a test can tell the fallback apart.
    error GriefingRecipientRefused();

    /// @notice Sets the behaviour.
    /// @param newMode The behaviour.
    function setMode(Mode newMode) external {
        mode = newMode;
    }

    /// @notice Sets the router `Reenter` calls.
    /// @param target The router.
    function setReentryTarget(address target) external {
        reentryTarget = target;
    }

    /// @notice Misbehaves according to `mode`.
    // solhint-disable-next-line no-complex-fallback
    receive() external payable {
        Mode current = mode;
        if (current == Mode.Revert) revert GriefingRecipientRefused();
        if (current == Mode.BurnGas) {
            while (true) {} // solhint-disable-line no-empty-blocks
        }
        if (current == Mode.ReturnBomb) {
            assembly ("memory-safe") {
                return(0, 200000)
            }
        }
        if (current == Mode.Reenter || current == Mode.ReenterRescue) {
            ISwapSettlement.SwapParams memory order;
            bytes memory call = current == Mode.Reenter
                ? abi.encodeCall(ITakerSwapRouter.swapNative, (order))
                : abi.encodeCall(IRegistryGatedRouter.rescue, (address(0), address(this), 0));
            // solhint-disable-next-line avoid-low-level-calls
            (bool ok, bytes memory data) = reentryTarget.call(call);
            lastReentryError = ok || data.length < 4 ? bytes4(0) : bytes4(data);
        }
    }
}
