// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISwapSettlement} from "../interfaces/ISwapSettlement.sol";

/// @title OrderWitnessHash
/// @notice EIP-712 hashes of the witnesses that bind an order of any kind to the taker's Permit2
/// signature. One hashing serves every kind, as Permit2's `permitWitnessTransferFrom` serves every
/// witness type: a kind is its type string and the order words it signs, declared below once.
/// @dev Every kind's order has SwapParams' ABI layout (IExactOutputSettlement), and every witness signs,
/// in this order: recipient, buyToken, the buy amount, the sell amount when the kind signs it,
/// deadline, quoteId, the hash of the actions, then the relayer's fee and its payee when gasless.
/// Permit2 appends a type string to its own stub, so each names the witness field, then lists the
/// referenced struct types in EIP-712 (alphabetical) order, TokenPermissions last.
library OrderWitnessHash {
    /// @notice How a kind's witness is hashed: its EIP-712 type hash, and whether it signs the sell
    /// amount after the buy amount (exact output signs the most the taker pays; exact input only the
    /// least it receives).
    struct Kind {
        bytes32 typeHash;
        bool signsSellAmount;
    }

    // Exact input: sell exactly `sellAmount`, receive at least `minBuyAmount`.
    string internal constant SWAP_WITNESS_TYPE =
        "SwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash)";
    string internal constant SWAP_WITNESS_TYPE_STRING =
        "SwapWitness witness)SwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash)TokenPermissions(address token,uint256 amount)";
    string internal constant GASLESS_WITNESS_TYPE =
        "GaslessSwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient)";
    string internal constant GASLESS_WITNESS_TYPE_STRING =
        "GaslessSwapWitness witness)GaslessSwapWitness(address recipient,address buyToken,uint256 minBuyAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient)TokenPermissions(address token,uint256 amount)";

    // Exact output: receive exactly `buyAmount`, spend at most `maxSellAmount`; both are signed, so
    // neither a relayer nor a copier of the transaction can change them.
    string internal constant EXACT_OUTPUT_WITNESS_TYPE =
        "ExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash)";
    string internal constant EXACT_OUTPUT_WITNESS_TYPE_STRING =
        "ExactOutputWitness witness)ExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash)TokenPermissions(address token,uint256 amount)";
    string internal constant GASLESS_EXACT_OUTPUT_WITNESS_TYPE =
        "GaslessExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient)";
    string internal constant GASLESS_EXACT_OUTPUT_WITNESS_TYPE_STRING =
        "GaslessExactOutputWitness witness)GaslessExactOutputWitness(address recipient,address buyToken,uint256 buyAmount,uint256 maxSellAmount,uint256 deadline,bytes32 quoteId,bytes32 actionsHash,uint256 relayerFee,address relayerFeeRecipient)TokenPermissions(address token,uint256 amount)";

    /// @notice The exact-input kind, taker-submitted.
    function exactInput() internal pure returns (Kind memory) {
        return Kind(keccak256(bytes(SWAP_WITNESS_TYPE)), false);
    }

    /// @notice The exact-input kind, gasless.
    function gaslessExactInput() internal pure returns (Kind memory) {
        return Kind(keccak256(bytes(GASLESS_WITNESS_TYPE)), false);
    }

    /// @notice The exact-output kind, taker-submitted.
    function exactOutput() internal pure returns (Kind memory) {
        return Kind(keccak256(bytes(EXACT_OUTPUT_WITNESS_TYPE)), true);
    }

    /// @notice The exact-output kind, gasless.
    function gaslessExactOutput() internal pure returns (Kind memory) {
        return Kind(keccak256(bytes(GASLESS_EXACT_OUTPUT_WITNESS_TYPE)), true);
    }

    /// @notice The struct hash of the taker-submitted witness of `params` of kind `kind`.
    function hash(Kind memory kind, ISwapSettlement.SwapParams calldata params) internal pure returns (bytes32) {
        return _hash(kind, params, false, 0, address(0));
    }

    /// @notice The struct hash of the gasless witness of `params` of kind `kind`, which also signs
    /// `relayerFee` and its payee.
    function hashGasless(
        Kind memory kind,
        ISwapSettlement.SwapParams calldata params,
        uint256 relayerFee,
        address relayerFeeRecipient
    ) internal pure returns (bytes32) {
        return _hash(kind, params, true, relayerFee, relayerFeeRecipient);
    }

    /// @dev The witness words laid out in scratch memory past the free pointer and hashed there. The
    /// order's static words are read from their head slots; the actions go through Solidity's checked
    /// calldata access, so an out-of-bounds `actions` reverts as it always did. A dirty address word
    /// only changes the hash, which no taker signed.
    function _hash(
        Kind memory kind,
        ISwapSettlement.SwapParams calldata params,
        bool gasless,
        uint256 relayerFee,
        address relayerFeeRecipient
    ) private pure returns (bytes32 digest) {
        bytes32 actionsHash = keccak256(params.actions);
        bytes32 typeHash = kind.typeHash;
        bool signsSellAmount = kind.signsSellAmount;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, typeHash)
            mstore(add(m, 0x20), calldataload(add(params, 0x80))) // recipient
            mstore(add(m, 0x40), calldataload(add(params, 0x40))) // buyToken
            mstore(add(m, 0x60), calldataload(add(params, 0x60))) // the buy amount
            let end := add(m, 0x80)
            if signsSellAmount {
                mstore(end, calldataload(add(params, 0x20)))
                end := add(end, 0x20)
            }
            mstore(end, calldataload(add(params, 0xa0))) // deadline
            mstore(add(end, 0x20), calldataload(add(params, 0xc0))) // quoteId
            mstore(add(end, 0x40), actionsHash)
            end := add(end, 0x60)
            if gasless {
                mstore(end, relayerFee)
                mstore(add(end, 0x20), relayerFeeRecipient)
                end := add(end, 0x40)
            }
            digest := keccak256(m, sub(end, m))
        }
    }
}
