// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IGaslessBatchSwapRouter} from "../interfaces/IGaslessBatchSwapRouter.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {GaslessExactOutput} from "./GaslessExactOutput.sol";
import {GaslessSwapSettlement} from "./GaslessSwapSettlement.sol";
import {GaslessTokenPermit} from "./GaslessTokenPermit.sol";
import {UniswapV3Hops} from "./venues/UniswapV3Hops.sol";

/// @title GaslessBatchSettlement
/// @notice Feature-3 settlement of GaslessBatchSwapRouter and GaslessBatchSwapRouterV2: `swapGasless` as before, plus `swapGaslessBatch`, which
/// settles many signed orders in one transaction and skips the ones that fail, the token-permit and
/// smart-wallet entry points (GaslessTokenPermit), and gasless exact-output swaps (GaslessExactOutput).
/// @dev Each order runs in a call from the router to itself (`settleBatchOrder`), so its revert undoes
/// only its own transfers. That inner call runs inside the batch's `settles` gate: the transient
/// re-entrancy lock stays set across it (a token re-entering any entry point is refused) and the
/// registry status is read once per batch. The inner call is refused to anyone but the router.
abstract contract GaslessBatchSettlement is IGaslessBatchSwapRouter, GaslessSwapSettlement, GaslessTokenPermit, GaslessExactOutput {
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

    /// @dev Gas that must remain before an order's call beyond its cap: the caller keeps 1/64 of what
    /// it forwards (EIP-150, `cap / 63` on top of the cap), and after a failure the batch must still
    /// afford the skip event.
    uint256 private constant ORDER_SKIP_GAS = 10_000;

    /// @dev What a batch has settled so far: bit `i` of `settled` for order `i`, and its buy amount.
    struct BatchResult {
        uint256 settled;
        uint256[] buyAmounts;
    }

    /// @param permit2_ Permit2.
    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose feature-3 status gates this router.
    /// @param venue The V2 factory whose pairs routes may use, and its pool fee.
    constructor(ISignatureTransfer permit2_, IWETH9 weth_, IRouterRegistry registry_, V2Venue memory venue)
        GaslessSwapSettlement(permit2_, weth_, registry_, venue)
    {}

    /// @dev GaslessExactOutput's (V3 pools of exact-output routes run backwards).
    function _v3ExactOutputCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data)
        internal
        override(UniswapV3Hops, GaslessExactOutput)
    {
        super._v3ExactOutputCallback(amount0Delta, amount1Delta, data);
    }

    /// @inheritdoc IGaslessBatchSwapRouter
    function swapGaslessBatch(GaslessOrder[] calldata orders, uint256[] calldata gasLimits)
        external
        settles
        returns (uint256 settled, uint256[] memory buyAmounts)
    {
        uint256 count = orders.length;
        if (count == 0 || count > MAX_BATCH_ORDERS) revert SwapBatchSize(count, MAX_BATCH_ORDERS);
        if (gasLimits.length != count) revert SwapBatchGasLimitsLength(count, gasLimits.length);
        // The loop's results live in memory and the return variables are written once, after it: the
        // loop body (an order's whole call, inlined by the optimizer) then never reaches below the
        // locals the compiler can move to memory, which keeps it compiling without the optimizer's
        // help too (solidity-coverage's instrumented build).
        BatchResult memory result = BatchResult({settled: 0, buyAmounts: new uint256[](count)});
        for (uint256 index; index < count; ++index) {
            _settleIsolated(orders[index], index, gasLimits[index], result);
        }
        (settled, buyAmounts) = (result.settled, result.buyAmounts);
    }

    /// @inheritdoc IGaslessBatchSwapRouter
    function settleBatchOrder(GaslessOrder calldata order, address submitter) external returns (uint256 buyAmount) {
        if (msg.sender != address(this)) revert SwapBatchSelfCallOnly(msg.sender);
        buyAmount = _swapGasless(
            order.params, order.taker, order.relayerFee, order.relayerFeeRecipient, order.nonce, order.signature, submitter
        );
    }

    /// @dev Calls `settleBatchOrder` on this router with at most `gasLimit` (the submitter's cap for
    /// this order, at most BATCH_ORDER_GAS), and records the
    /// outcome in `result` (bit `index` of `settled`, and the order's buy amount). On failure, emits
    /// GaslessOrderSkipped with at most MAX_SKIP_REASON_BYTES of the revert data: only that much is
    /// ever copied, so a return-data bomb costs the batch nothing beyond the order's own gas. The
    /// memory used for the call is released afterwards, so a long batch does not pay for a growing
    /// memory.
    function _settleIsolated(GaslessOrder calldata order, uint256 index, uint256 gasLimit, BatchResult memory result)
        private
    {
        if (gasLimit > BATCH_ORDER_GAS) revert SwapBatchOrderGasTooHigh(index, gasLimit, BATCH_ORDER_GAS);
        bytes memory data = _settleBatchOrderCall(order);
        uint256 gasLeft = gasleft();
        uint256 needed = gasLimit + gasLimit / 63 + ORDER_SKIP_GAS;
        if (gasLeft < needed) revert SwapBatchGasTooLow(index, gasLeft, needed);
        bool ok;
        uint256 buyAmount;
        assembly ("memory-safe") {
            ok := call(gasLimit, address(), 0, add(data, 0x20), mload(data), 0, 0x20)
            buyAmount := mload(0)
        }
        if (ok) {
            result.settled |= 1 << index;
            result.buyAmounts[index] = buyAmount;
        } else {
            // The encoded call is no longer needed: the reason takes its place.
            bytes memory reason = data;
            assembly ("memory-safe") {
                let length := returndatasize()
                if gt(length, MAX_SKIP_REASON_BYTES) { length := MAX_SKIP_REASON_BYTES }
                mstore(reason, length)
                returndatacopy(add(reason, 0x20), 0, length)
                mstore(0x40, add(add(reason, 0x20), and(add(length, 0x1f), not(0x1f))))
            }
            emit GaslessOrderSkipped(order.params.quoteId, index, reason);
        }
        assembly ("memory-safe") {
            // `data` was allocated at the free memory pointer: everything from it on is released.
            mstore(0x40, data)
        }
    }

    /// @dev `settleBatchOrder(order, msg.sender)`, encoded in free memory.
    function _settleBatchOrderCall(GaslessOrder calldata order) private view returns (bytes memory) {
        return abi.encodeCall(IGaslessBatchSwapRouter.settleBatchOrder, (order, msg.sender));
    }
}
