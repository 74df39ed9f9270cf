// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IUniswapV4PoolManagerMinimal} from "../../interfaces/IUniswapV4PoolManagerMinimal.sol";
import {IUniswapV4Venue} from "../../interfaces/IUniswapV4Venue.sol";
import {RouteActions} from "../../libraries/RouteActions.sol";
import {RouterFunds} from "../RouterFunds.sol";
import {UniswapV4Module} from "./UniswapV4Module.sol";

/// @title UniswapV4Hops
/// @notice The Uniswap V4 venue module: runs of SWAP_V4 hops inside one `unlock` of the router's
/// PoolManager (an immutable, zero for routers without V4), and the `unlockCallback` that runs them.
/// @dev Both halves live in UniswapV4Module, which this router creates in its constructor and reaches
/// by DELEGATECALL (EIP-170 leaves the routers no room for them): the module accepts the callback only
/// from the PoolManager while a transient flag says this router's own run is unlocking it.
abstract contract UniswapV4Hops is IUniswapV4Venue, RouterFunds {
    /// @dev The module's `swapV4Run()`.
    bytes4 private constant SWAP_V4_RUN_SELECTOR = UniswapV4Module.swapV4Run.selector;

    /// @dev What this build's V4 venue does (IUniswapV4Venue.v4Revision).
    uint256 private constant V4_REVISION = 2;

    address private immutable _v4PoolManager;
    address private immutable _v4Module;

    /// @param poolManager_ Uniswap V4's PoolManager, or zero for a router without the V4 venue.
    constructor(address poolManager_) {
        if (poolManager_ != address(0)) {
            _v4PoolManager = poolManager_;
            _v4Module = address(new UniswapV4Module(IUniswapV4PoolManagerMinimal(poolManager_)));
        }
    }

    /// @inheritdoc IUniswapV4Venue
    function poolManager() external view returns (address) {
        return _v4PoolManager;
    }

    /// @inheritdoc IUniswapV4Venue
    function v4Revision() external view returns (uint256) {
        return _v4PoolManager == address(0) ? 0 : V4_REVISION;
    }

    /// @inheritdoc IUniswapV4Venue
    function unlockCallback(bytes calldata) external returns (bytes memory) {
        address module = _v4Module;
        // The module checks the caller and decodes this very calldata; its answer (or revert) is
        // passed on as it is. A router without V4 has no module: the call reaches no code and does
        // nothing (this router never unlocks a PoolManager), returning empty data.
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            calldatacopy(ptr, 0, calldatasize())
            let ok := delegatecall(gas(), module, ptr, calldatasize(), 0, 0)
            returndatacopy(ptr, 0, returndatasize())
            if iszero(ok) { revert(ptr, returndatasize()) }
            return(ptr, returndatasize())
        }
    }

    /// @dev Where a taker's signed sell goes when the route's first action takes its input from this
    /// router: the PoolManager, synced to `sellToken` first, when that action is SWAP_V4 (Permit2 then
    /// pays the singleton directly, saving the router's own transfer); this router otherwise. Only an
    /// entry point that delivers the sell itself right after this call may use it: the PoolManager
    /// counts what arrives between `sync` and the run's `settle` as this router's payment.
    function _signedSellDestination(bytes calldata actions, address sellToken) internal returns (address) {
        address manager = _v4PoolManager;
        if (manager == address(0) || RouteActions.opcodeAt(actions, 0) != RouteActions.SWAP_V4) return address(this);
        IUniswapV4PoolManagerMinimal(manager).sync(sellToken);
        return manager;
    }

    /// @dev The run of SWAP_V4 actions from `offset` to `end` (whole actions, checked by the caller):
    /// `amount` of `tokenIn` paid as `mode` says (UniswapV4RunMode), swapped hop by hop in
    /// one unlock, the output (returned) taken to `to`; or, in EXACT_OUTPUT, exactly `amount` out to
    /// `to`, the input (returned) paid from the order's.
    function _swapV4(
        bytes calldata actions,
        uint256 offset,
        uint256 end,
        address tokenIn,
        uint256 amount,
        uint256 mode,
        address to
    ) internal returns (uint256 result) {
        address module = _v4Module;
        if (module == address(0)) revert SwapUnknownAction(RouteActions.SWAP_V4, offset);
        bytes4 selector = SWAP_V4_RUN_SELECTOR;
        // By hand, past the free memory pointer: the module's packed encoding (UniswapV4Module) costs
        // the routers' size headroom less than the ABI coder would.
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 4), shl(96, tokenIn))
            mstore(add(ptr, 24), amount)
            mstore(add(ptr, 56), shl(96, to))
            mstore8(add(ptr, 76), mode)
            let length := sub(end, offset)
            calldatacopy(add(ptr, 77), add(actions.offset, offset), length)
            if iszero(delegatecall(gas(), module, ptr, add(77, length), 0, 0x20)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
            result := mload(0)
        }
    }

    /// @dev The PoolManager pays native ETH out of a run that ends in it.
    function _nativePayer() internal view override returns (address) {
        return _v4PoolManager;
    }
}
