// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IExactOutputSettlement} from "./IExactOutputSettlement.sol";
import {IGaslessSwapRouter} from "./IGaslessSwapRouter.sol";

/// @title IGaslessExactOutputRouter
/// @notice Gasless exact-output swaps: a relayer submits the taker's signed order for an exact
/// output; the relayer's fee is on top of the input, in the sell token, as for exact-input swaps.
/// @dev The taker signs a Permit2 transfer of `maxSellAmount + relayerFee`; the router requests only
/// the input the route needs plus the fee, so the rest of the maximum never leaves the taker's wallet.
interface IGaslessExactOutputRouter is IExactOutputSettlement, IGaslessSwapRouter {
    /// @notice Executes `taker`'s signed exact-output order and pays the signed relayer fee.
    /// @dev Witness: GaslessExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,
    /// uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,
    /// address relayerFeeRecipient). The permitted amount is `maxSellAmount + relayerFee`.
    /// @param params The order.
    /// @param taker The owner of the sell tokens, who signed.
    /// @param relayerFee The fee, in the sell token, that the taker signed for the relayer.
    /// @param relayerFeeRecipient Who receives the fee, as signed; zero is refused when the fee is not.
    /// @param nonce The Permit2 unordered nonce the taker signed.
    /// @param signature The taker's 65-byte signature.
    /// @return sellAmount The input the route took (the relayer fee not included).
    /// @return buyAmount What the recipient received.
    function swapGaslessExactOutput(
        ExactOutputParams calldata params,
        address taker,
        uint256 relayerFee,
        address relayerFeeRecipient,
        uint256 nonce,
        bytes calldata signature
    ) external returns (uint256 sellAmount, uint256 buyAmount);
}
