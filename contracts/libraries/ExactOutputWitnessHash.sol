// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IExactOutputSettlement} from "../interfaces/IExactOutputSettlement.sol";

/// @title ExactOutputWitnessHash
/// @notice EIP-712 hashes of the witnesses that bind an exact-output order to the taker's Permit2
/// signature: the output (`buyAmount`) and the most the taker pays (`maxSellAmount`) are both signed,
/// so neither a relayer nor a copier of the transaction can change them.
/// @dev Same conventions as SwapWitnessHash: the type string names the witness field, then lists the
/// referenced struct types in EIP-712 order, TokenPermissions last.
library ExactOutputWitnessHash {
    string internal constant EXACT_OUTPUT_WITNESS_TYPE =
        "ExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash)";
    bytes32 internal constant EXACT_OUTPUT_WITNESS_TYPEHASH = keccak256(bytes(EXACT_OUTPUT_WITNESS_TYPE));
    string internal constant EXACT_OUTPUT_WITNESS_TYPE_STRING =
        "ExactOutputWitness witness)ExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash)TokenPermissions(address token,uint256 amount)";

    string internal constant GASLESS_EXACT_OUTPUT_WITNESS_TYPE =
        "GaslessExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient)";
    bytes32 internal constant GASLESS_EXACT_OUTPUT_WITNESS_TYPEHASH = keccak256(bytes(GASLESS_EXACT_OUTPUT_WITNESS_TYPE));
    string internal constant GASLESS_EXACT_OUTPUT_WITNESS_TYPE_STRING =
        "GaslessExactOutputWitness witness)GaslessExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient)TokenPermissions(address token,uint256 amount)";

    /// @notice The struct hash of the ExactOutputWitness of `params`.
    function hashExactOutputWitness(IExactOutputSettlement.ExactOutputParams calldata params)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                EXACT_OUTPUT_WITNESS_TYPEHASH,
                params.recipient,
                params.buyToken,
                params.buyAmount,
                params.maxSellAmount,
                params.deadline,
                params.quoteId,
                keccak256(params.actions)
            )
        );
    }

    /// @notice The struct hash of the GaslessExactOutputWitness of `params`, `relayerFee` and its payee.
    function hashGaslessExactOutputWitness(
        IExactOutputSettlement.ExactOutputParams calldata params,
        uint256 relayerFee,
        address relayerFeeRecipient
    ) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                GASLESS_EXACT_OUTPUT_WITNESS_TYPEHASH,
                params.recipient,
                params.buyToken,
                params.buyAmount,
                params.maxSellAmount,
                params.deadline,
                params.quoteId,
                keccak256(params.actions),
                relayerFee,
                relayerFeeRecipient
            )
        );
    }
}
