// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IV4PoolManagerTake, V4PoolKey, V4SwapParams} from "./DevV4Types.sol";

/// @title DevV4SwapFeeHook
/// @notice The devnet's delta-returning Uniswap V4 hook: after every swap it takes `FEE_BPS` of the
/// swap's unspecified amount for itself (of the output of an exact-input swap, on top of the input of
/// an exact-output one), so a swap through its pools returns less than the pool's own curve says.
/// Its address carries AFTER_SWAP and AFTER_SWAP_RETURNS_DELTA (bits 6 and 2): quoting leaves such
/// a pool out unless the operator allowlists the hook.
/// @dev Deployed by CREATE2 at a mined salt so that the address's low 14 bits are exactly 0x0044.
contract DevV4SwapFeeHook {
    /// @notice The cut of each swap's unspecified amount, in bps.
    uint256 public constant FEE_BPS = 50;
    /// @notice Basis points in one.
    uint256 public constant BPS = 10_000;

    /// @notice The PoolManager whose pools this hook serves.
    address public immutable poolManager;

    /// @notice The hook took `amount` of `currency` from a swap of pool `poolId`.
    event HookFeeTaken(bytes32 indexed poolId, address indexed currency, uint256 amount);
    /// @notice The hook's owner-less balance left through `sweep`.
    event HookFeesSwept(address indexed currency, address indexed to, uint256 amount);

    /// @notice A caller other than the PoolManager called a hook function.
    error DevV4HookNotPoolManager(address caller);
    /// @notice Sending collected ETH failed.
    error DevV4HookEthTransferFailed(address to, uint256 amount);

    /// @param poolManager_ The PoolManager that will call this hook.
    constructor(address poolManager_) {
        poolManager = poolManager_;
    }

    /// @notice Receives the ETH the hook takes from native-currency pools.
    receive() external payable {}

    /// @notice The PoolManager's call after a swap: takes FEE_BPS of the unspecified amount.
    /// @param key The pool's key.
    /// @param params The swap's parameters (direction and whether it was exact input).
    /// @param delta The swap's balance delta (amount0 in the high 128 bits, amount1 in the low).
    /// @return The selector that acknowledges the call, and the hook's delta on the unspecified currency.
    function afterSwap(address, V4PoolKey calldata key, V4SwapParams calldata params, int256 delta, bytes calldata) external returns (bytes4, int128) {
        if (msg.sender != poolManager) revert DevV4HookNotPoolManager(msg.sender);
        // The specified currency is the input of an exact-input swap and the output of an exact-output one.
        bool specifiedIsZero = (params.amountSpecified < 0) == params.zeroForOne;
        int128 unspecified = specifiedIsZero ? int128(delta) : int128(delta >> 128);
        uint256 magnitude = uint256(uint128(unspecified < 0 ? -unspecified : unspecified));
        uint256 fee = (magnitude * FEE_BPS) / BPS;
        if (fee == 0) return (this.afterSwap.selector, 0);
        address currency = specifiedIsZero ? key.currency1 : key.currency0;
        emit HookFeeTaken(keccak256(abi.encode(key)), currency, fee);
        // The positive delta is owed to the hook; taking it settles it within the swapper's unlock.
        IV4PoolManagerTake(poolManager).take(currency, address(this), fee);
        // The fee is at most half a percent of an int128's magnitude, so it fits an int128.
        return (this.afterSwap.selector, int128(int256(fee)));
    }
}
