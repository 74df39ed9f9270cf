// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISwapSettlement} from "./ISwapSettlement.sol";

/// @title IGaslessSwapRouter
/// @notice Feature 3 of the router registry: swaps a relayer submits with the taker's signature.
/// @dev Anyone may submit, but the outcome is fixed by the taker's Permit2 witness signature, which
/// also binds the relayer's fee; Permit2's nonce makes a replay impossible. The taker signs a permit
/// for `sellAmount + relayerFee`; the fee goes to whoever submits (`msg.sender`).
interface IGaslessSwapRouter is ISwapSettlement {
    /// @notice A relayer was paid `amount` of `token` for submitting the swap of `quoteId`.
    event RelayerFeePaid(bytes32 indexed quoteId, address indexed relayer, address token, uint256 amount);

    /// @notice Gasless swaps sell ERC20 tokens only: the native asset cannot be pulled by signature.
    error SwapNativeSellNotGasless();

    /// @notice Executes `taker`'s signed swap and pays the relayer fee to `msg.sender`.
    /// @dev Witness: GaslessSwapWitness(address recipient,address buyToken,uint256 minBuyAmount,
    /// uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee).
    /// @param params The order.
    /// @param taker The owner of the sell tokens, who signed.
    /// @param relayerFee The fee, in the sell token, that the taker signed for the relayer.
    /// @param nonce The Permit2 unordered nonce the taker signed.
    /// @param signature The taker's 65-byte signature.
    /// @return buyAmount What the recipient received.
    function swapGasless(
        SwapParams calldata params,
        address taker,
        uint256 relayerFee,
        uint256 nonce,
        bytes calldata signature
    ) external returns (uint256 buyAmount);
}
