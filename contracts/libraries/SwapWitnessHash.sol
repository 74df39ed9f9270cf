// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISwapSettlement} from "../interfaces/ISwapSettlement.sol";

/// @title SwapWitnessHash
/// @notice EIP-712 hashes of the witnesses that bind a swap order to the taker's Permit2 signature.
/// @dev Permit2 appends `witnessTypeString` to its own type stub, so each string names the witness
/// field, then lists the referenced struct types in EIP-712 (alphabetical) order, TokenPermissions last.
library SwapWitnessHash {
    string internal constant SWAP_WITNESS_TYPE =
        "SwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash)";
    bytes32 internal constant SWAP_WITNESS_TYPEHASH = keccak256(bytes(SWAP_WITNESS_TYPE));
    string internal constant SWAP_WITNESS_TYPE_STRING =
        "SwapWitness witness)SwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash)TokenPermissions(address token,uint256 amount)";

    string internal constant GASLESS_WITNESS_TYPE =
        "GaslessSwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient)";
    bytes32 internal constant GASLESS_WITNESS_TYPEHASH = keccak256(bytes(GASLESS_WITNESS_TYPE));
    string internal constant GASLESS_WITNESS_TYPE_STRING =
        "GaslessSwapWitness witness)GaslessSwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient)TokenPermissions(address token,uint256 amount)";

    /// @notice The struct hash of the SwapWitness of `params`.
    function hashSwapWitness(ISwapSettlement.SwapParams calldata params) internal pure returns (bytes32) {
        return keccak256(
            abi.encode(
                SWAP_WITNESS_TYPEHASH,
                params.recipient,
                params.buyToken,
                params.minBuyAmount,
                params.deadline,
                params.quoteId,
                keccak256(params.actions)
            )
        );
    }

    /// @notice The struct hash of the GaslessSwapWitness of `params`, `relayerFee` and its payee.
    function hashGaslessWitness(
        ISwapSettlement.SwapParams calldata params,
        uint256 relayerFee,
        address relayerFeeRecipient
    )
        internal
        pure
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                GASLESS_WITNESS_TYPEHASH,
                params.recipient,
                params.buyToken,
                params.minBuyAmount,
                params.deadline,
                params.quoteId,
                keccak256(params.actions),
                relayerFee,
                relayerFeeRecipient
            )
        );
    }
}
