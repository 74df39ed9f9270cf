// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IGaslessBatchSwapRouter} from "../interfaces/IGaslessBatchSwapRouter.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {GaslessSwapRouter} from "./GaslessSwapRouter.sol";
import {GaslessTokenPermit} from "./GaslessTokenPermit.sol";

/// @title GaslessBatchSwapRouter
/// @notice Feature-3 router, second version: `swapGasless` as before, plus `swapGaslessBatch`, which
/// settles many signed orders in one transaction and skips the ones that fail.
/// @dev Each order runs in a call from the router to itself (`settleBatchOrder`), so its revert undoes
/// only its own transfers. That inner call runs inside the batch's `settles` gate: the transient
/// re-entrancy lock stays set across it (a token re-entering any entry point is refused) and the
/// registry status is read once per batch. The inner call is refused to anyone but the router.
contract GaslessBatchSwapRouter is IGaslessBatchSwapRouter, GaslessSwapRouter, GaslessTokenPermit {
    /// @inheritdoc IGaslessBatchSwapRouter
    uint256 public constant MAX_BATCH_ORDERS = 64;
    /// @inheritdoc IGaslessBatchSwapRouter
    /// @dev About three times the costliest route `npm run bench:gas` measures (a split of 1+2+2 hops,
    /// about 340,000 with its transaction overhead), so quoted routes fit with room; a route that
    /// needs more settles only through `swapGasless`.
    uint256 public constant BATCH_ORDER_GAS = 1_000_000;
    /// @inheritdoc IGaslessBatchSwapRouter
    /// @dev Room for any custom error of a few words or a short revert string; a longer reason (a
    /// hostile token's return-data bomb) is cut, so recording it costs a bounded amount.
    uint256 public constant MAX_SKIP_REASON_BYTES = 256;

    /// @dev Gas that must remain before an order's call: the caller keeps 1/64 of what it forwards
    /// (EIP-150), and after a failure the batch must still afford the skip event.
    uint256 private constant ORDER_GAS_NEEDED = BATCH_ORDER_GAS + BATCH_ORDER_GAS / 63 + 10_000;

    /// @param permit2_ Permit2.
    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose feature-3 status gates this router.
    /// @param venue The V2 factory whose pairs routes may use, and its pool fee.
    constructor(ISignatureTransfer permit2_, IWETH9 weth_, IRouterRegistry registry_, V2Venue memory venue)
        GaslessSwapRouter(permit2_, weth_, registry_, venue)
    {}

    /// @inheritdoc IGaslessBatchSwapRouter
    function swapGaslessBatch(GaslessOrder[] calldata orders)
        external
        settles
        returns (uint256 settled, uint256[] memory buyAmounts)
    {
        uint256 count = orders.length;
        if (count == 0 || count > MAX_BATCH_ORDERS) revert SwapBatchSize(count, MAX_BATCH_ORDERS);
        buyAmounts = new uint256[](count);
        for (uint256 index; index < count; ++index) {
            (bool ok, uint256 buyAmount) = _settleIsolated(orders[index], index);
            if (ok) {
                settled |= 1 << index;
                buyAmounts[index] = buyAmount;
            }
        }
    }

    /// @inheritdoc IGaslessBatchSwapRouter
    function settleBatchOrder(GaslessOrder calldata order, address submitter) external returns (uint256 buyAmount) {
        if (msg.sender != address(this)) revert SwapBatchSelfCallOnly(msg.sender);
        buyAmount = _swapGasless(
            order.params, order.taker, order.relayerFee, order.relayerFeeRecipient, order.nonce, order.signature, submitter
        );
    }

    /// @dev Calls `settleBatchOrder` on this router with at most BATCH_ORDER_GAS. On failure, emits
    /// GaslessOrderSkipped with at most MAX_SKIP_REASON_BYTES of the revert data: only that much is
    /// ever copied, so a return-data bomb costs the batch nothing beyond the order's own gas. The
    /// memory used for the call is released afterwards, so a long batch does not pay for a growing
    /// memory.
    function _settleIsolated(GaslessOrder calldata order, uint256 index) private returns (bool ok, uint256 buyAmount) {
        uint256 freeMemory;
        assembly ("memory-safe") {
            freeMemory := mload(0x40)
        }
        bytes memory data = abi.encodeCall(IGaslessBatchSwapRouter.settleBatchOrder, (order, msg.sender));
        uint256 gasLeft = gasleft();
        if (gasLeft < ORDER_GAS_NEEDED) revert SwapBatchGasTooLow(index, gasLeft, ORDER_GAS_NEEDED);
        bytes memory reason;
        assembly ("memory-safe") {
            ok := call(BATCH_ORDER_GAS, address(), 0, add(data, 0x20), mload(data), 0, 0x20)
            switch ok
            case 1 { buyAmount := mload(0) }
            default {
                // The encoded call is no longer needed: the reason takes its place.
                reason := freeMemory
                let length := returndatasize()
                if gt(length, MAX_SKIP_REASON_BYTES) { length := MAX_SKIP_REASON_BYTES }
                mstore(reason, length)
                returndatacopy(add(reason, 0x20), 0, length)
                mstore(0x40, add(add(reason, 0x20), and(add(length, 0x1f), not(0x1f))))
            }
        }
        if (!ok) emit GaslessOrderSkipped(order.params.quoteId, index, reason);
        assembly ("memory-safe") {
            mstore(0x40, freeMemory)
        }
    }
}
