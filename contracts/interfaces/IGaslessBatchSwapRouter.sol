// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IGaslessSwapRouter} from "./IGaslessSwapRouter.sol";

/// @title IGaslessBatchSwapRouter
/// @notice Feature 3, second version: everything IGaslessSwapRouter does (`swapGasless` unchanged),
/// plus settling many signed orders in one transaction.
/// @dev A batch is a list of the very orders `swapGasless` takes, each signed by its own taker for
/// this router. The registry gate (re-entrancy lock, pause, activation window) is checked once for
/// the whole batch; if it refuses, nothing settles. Then each order runs in its own call frame (the
/// router calls `settleBatchOrder` on itself), so an order that fails for any reason (its signature,
/// a Permit2 nonce already used, its deadline, its minimum output, a token that reverts, the gas it
/// may use) is undone on its own and skipped with `GaslessOrderSkipped`; the others settle. Each
/// settled order pays its own signed relayer fee to its own signed payee (RelayerFeePaid, SwapSettled,
/// exactly as `swapGasless`); a skipped order moves nothing and pays nothing, and its signature stays
/// unspent. Permit2's nonce makes every order settle at most once, even when a batch names it twice.
/// Nothing in a batch depends on who submits it: a copier who lands a relayer's batch first pays the
/// gas, and every fee still goes to the payees the takers signed.
interface IGaslessBatchSwapRouter is IGaslessSwapRouter {
    /// @notice One signed order: the arguments of `swapGasless`, in the same order.
    struct GaslessOrder {
        SwapParams params;
        address taker;
        uint256 relayerFee;
        address relayerFeeRecipient;
        uint256 nonce;
        bytes signature;
    }

    /// @notice Order `index` of a batch (quote `quoteId`) failed and was skipped; nothing of it moved.
    /// @dev `reason` is the revert data of the order's call, cut to its first MAX_SKIP_REASON_BYTES
    /// bytes (a custom error such as `SwapDeadlineExpired(...)`, Permit2's `InvalidNonce()`, a token's
    /// own revert); empty when the order ran out of the gas cap the submitter gave it.
    event GaslessOrderSkipped(bytes32 indexed quoteId, uint256 index, bytes reason);

    /// @notice A batch must hold 1 to `max` orders; it held `count`.
    error SwapBatchSize(uint256 count, uint256 max);
    /// @notice Before order `index` only `gasLeft` gas remained, less than the `needed` that lets it
    /// use its full gas cap; the submitter sent too little gas, so the whole batch reverts rather than
    /// skip an order that could have settled.
    error SwapBatchGasTooLow(uint256 index, uint256 gasLeft, uint256 needed);
    /// @notice A batch needs one gas cap per order: it held `orders` orders and `gasLimits` caps.
    error SwapBatchGasLimitsLength(uint256 orders, uint256 gasLimits);
    /// @notice Order `index` was given a cap of `gasLimit`, above the `max` (BATCH_ORDER_GAS) an order may use.
    error SwapBatchOrderGasTooHigh(uint256 index, uint256 gasLimit, uint256 max);
    /// @notice `settleBatchOrder` is the router's own per-order step; `caller` is not the router.
    error SwapBatchSelfCallOnly(address caller);

    /// @notice Settles every order of `orders` that can settle, skipping (with GaslessOrderSkipped)
    /// each one that cannot.
    /// @dev Reverts only for the batch as a whole: SwapReentrantCall, SwapFeaturePaused or
    /// SwapRouterNotActive (the registry gate, checked once), SwapBatchSize (no orders, or more than
    /// MAX_BATCH_ORDERS), SwapBatchGasLimitsLength (not one cap per order), SwapBatchOrderGasTooHigh
    /// (a cap above BATCH_ORDER_GAS) and SwapBatchGasTooLow (the transaction's gas ran short of an
    /// order's cap). Order `i` gets at most `gasLimits[i]` gas, so an order that burns gas (a hostile
    /// token, a taker's wallet) costs the submitter at most the cap it chose for that order and is
    /// skipped; the orders after it still get theirs. A successful batch may have settled nothing:
    /// read `settled`.
    /// @param orders The signed orders, settled in this order.
    /// @param gasLimits The most gas each order's call may use (the submitter's cap for order `i`, at
    /// most BATCH_ORDER_GAS); an order that needs more is skipped with an empty reason.
    /// @return settled Bit `i` is set when order `i` settled.
    /// @return buyAmounts What each settled order's recipient received; zero for a skipped order.
    function swapGaslessBatch(GaslessOrder[] calldata orders, uint256[] calldata gasLimits)
        external
        returns (uint256 settled, uint256[] memory buyAmounts);

    /// @notice One order of a batch, exactly as `swapGasless` settles it, with `submitter` (the batch's
    /// sender) named in RelayerFeePaid. Only the router itself may call it, from `swapGaslessBatch`,
    /// inside that batch's gate; anyone else is refused with SwapBatchSelfCallOnly.
    /// @param order The signed order.
    /// @param submitter Who sent the batch.
    /// @return buyAmount What the recipient received.
    function settleBatchOrder(GaslessOrder calldata order, address submitter) external returns (uint256 buyAmount);

    /// @notice The most orders one batch may hold.
    /// @return The cap.
    function MAX_BATCH_ORDERS() external view returns (uint256); // solhint-disable-line func-name-mixedcase

    /// @notice The most gas the submitter may let one order of a batch use (each order's own cap is
    /// `gasLimits[i]`); a route that needs more settles only through `swapGasless`.
    /// @return The per-order gas.
    function BATCH_ORDER_GAS() external view returns (uint256); // solhint-disable-line func-name-mixedcase

    /// @notice How many bytes of a skipped order's revert data GaslessOrderSkipped carries.
    /// @return The cap.
    function MAX_SKIP_REASON_BYTES() external view returns (uint256); // solhint-disable-line func-name-mixedcase
}
