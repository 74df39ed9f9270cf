// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IRegistryGatedRouter} from "../interfaces/IRegistryGatedRouter.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {ISwapSettlement} from "../interfaces/ISwapSettlement.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {RouteActions} from "../libraries/RouteActions.sol";
import {RegistryGate} from "./RegistryGate.sol";

/// @title RouterFunds
/// @notice The tokens and ether a router holds while a swap runs: how it wraps and unwraps ether,
/// measures what a recipient received, pays out, and how the registry's administrator rescues
/// anything sent to it by mistake.
/// @dev The router holds no funds between transactions (see RouteExecutor); these are the primitives
/// every action and settlement moves funds with.
abstract contract RouterFunds is ISwapSettlement, RegistryGate {
    using SafeERC20 for IERC20;

    /// @notice Gas a native payout may use. Enough for a smart wallet's `receive` (a Safe needs about
    /// 10,000); a recipient that needs more, reverts, or returns a bomb gets WETH instead, so it can
    /// neither make a relayed swap fail nor make it cost more than this.
    uint256 public constant NATIVE_PAYOUT_GAS = 40_000;

    /// @notice The native-asset placeholder used for sell and buy tokens.
    address public constant NATIVE = RouteActions.NATIVE;

    /// @notice Wrapped ether.
    IWETH9 public immutable weth;

    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose status gates settlement and whose administrator may rescue.
    /// @param featureId_ The registry feature this router serves.
    constructor(IWETH9 weth_, IRouterRegistry registry_, uint128 featureId_) RegistryGate(registry_, featureId_) {
        if (address(weth_) == address(0) || address(registry_) == address(0)) revert SwapZeroAddress();
        weth = weth_;
    }

    /// @notice Accepts ether only from WETH, when unwrapping, and from the venue that pays native ETH
    /// out of a swap (`_nativePayer`).
    /// @dev WETH is compared first and alone: WETH9's `withdraw` pays through `transfer`, whose 2,300-gas
    /// stipend must also carry the coverage build's probes.
    receive() external payable {
        if (msg.sender != address(weth) && msg.sender != _nativePayer()) revert SwapNativeValueMismatch(0, msg.value);
    }

    /// @dev The venue that pays this router native ETH out of a swap (UniswapV4Hops: its PoolManager,
    /// zero for a router without V4).
    function _nativePayer() internal view virtual returns (address);

    /// @inheritdoc IRegistryGatedRouter
    function rescue(address token, address to, uint256 amount) external locked {
        _checkRegistryAdmin();
        if (to == address(0)) revert SwapZeroAddress();
        if (token == NATIVE) {
            (bool sent,) = to.call{value: amount}("");
            if (!sent) revert SwapNativeTransferFailed(to, amount);
        } else {
            IERC20(token).safeTransfer(to, amount);
        }
        emit FundsRescued(token, to, amount);
    }

    /// @dev WETH's `deposit` (with `value`) or `withdraw(amount)` without the ABI encoder: WETH is a
    /// known contract, so the extcodesize check of a high-level call buys nothing.
    function _wethCall(uint32 selector, uint256 value, uint256 amount) internal {
        IWETH9 wrapped = weth;
        assembly ("memory-safe") {
            mstore(0, shl(224, selector))
            mstore(4, amount)
            if iszero(call(gas(), wrapped, value, 0, 0x24, 0, 0)) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
        }
    }

    /// @dev `balanceOf` without the ABI decoder; reverts if the token does not answer with a word.
    function _balanceOf(address token, address account) internal view returns (uint256 amount) {
        assembly ("memory-safe") {
            mstore(0, 0x70a0823100000000000000000000000000000000000000000000000000000000)
            mstore(4, account)
            if iszero(and(gt(returndatasize(), 0x1f), staticcall(gas(), token, 0, 0x24, 0, 0x20))) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            amount := mload(0)
        }
    }

    /// @dev Pays `amount` of `token` (ERC20 or native) held by this router.
    function _pay(address token, address to, uint256 amount) internal {
        if (amount == 0) return;
        if (token == NATIVE) {
            _payNative(to, amount);
        } else {
            IERC20(token).safeTransfer(to, amount);
        }
    }

    /// @dev ETH to a recipient the taker or the fee route named, who may be a contract that reverts
    /// (perhaps only outside simulation), burns gas, or returns megabytes. The call gets at most
    /// NATIVE_PAYOUT_GAS and none of its return data is copied; if it fails, the same value is paid
    /// as WETH, which cannot run recipient code. The swap settles either way, at a bounded cost.
    function _payNative(address to, uint256 amount) private {
        bool sent;
        assembly ("memory-safe") {
            sent := call(NATIVE_PAYOUT_GAS, to, amount, 0, 0, 0, 0)
        }
        if (!sent) {
            _wethCall(0xd0e30db0, amount, 0); // deposit()
            IERC20(address(weth)).safeTransfer(to, amount);
            emit NativePayoutWrapped(to, amount);
        }
    }
}
