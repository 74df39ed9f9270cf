// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IRegistryGatedRouter} from "./IRegistryGatedRouter.sol";
import {ISwapSettlement} from "./ISwapSettlement.sol";

/// @title IGaslessSwapRouter
/// @notice Feature 3 of the router registry: swaps a relayer submits with the taker's signature.
/// @dev Anyone may submit, but the outcome is fixed by the taker's Permit2 witness signature, which
/// also binds the relayer's fee and the address that receives it; Permit2's nonce makes a replay
/// impossible. The taker signs a permit for `sellAmount + relayerFee`. The fee goes to the signed
/// `relayerFeeRecipient`, never to `msg.sender`: whoever copies a relayer's pending transaction and
/// lands it first pays the gas and gains nothing.
interface IGaslessSwapRouter is ISwapSettlement, IRegistryGatedRouter {
    /// @notice `amount` of `token` went to the signed fee recipient for the swap of `quoteId`, which
    /// `submitter` sent.
    event RelayerFeePaid(
        bytes32 indexed quoteId, address indexed recipient, address submitter, address token, uint256 amount
    );

    /// @notice Gasless swaps sell ERC20 tokens only: the native asset cannot be pulled by signature.
    error SwapNativeSellNotGasless();

    /// @notice Executes `taker`'s signed swap and pays the signed relayer fee to its signed recipient.
    /// @dev Witness: GaslessSwapWitness(address recipient,address buyToken,uint256 minBuyAmount,
    /// uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient).
    /// @param params The order.
    /// @param taker The owner of the sell tokens, who signed.
    /// @param relayerFee The fee, in the sell token, that the taker signed for the relayer.
    /// @param relayerFeeRecipient Who receives the fee, as signed; zero is refused when the fee is not.
    /// @param nonce The Permit2 unordered nonce the taker signed.
    /// @param signature The taker's 65-byte signature.
    /// @return buyAmount What the recipient received.
    function swapGasless(
        SwapParams calldata params,
        address taker,
        uint256 relayerFee,
        address relayerFeeRecipient,
        uint256 nonce,
        bytes calldata signature
    ) external returns (uint256 buyAmount);
}
