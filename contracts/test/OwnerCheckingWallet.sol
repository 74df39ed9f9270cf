// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title OwnerCheckingWallet
/// @notice Test-only ERC-1271 contract wallet: a signature is valid when its one owner key signed the
/// hash. Stands in for a deployed smart-account wallet in the onboarding tests. Never deployed by
/// the devnet.
contract OwnerCheckingWallet {
    /// @notice ERC-1271's answer for a valid signature (`isValidSignature.selector`).
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;

    /// @notice The key whose signatures this wallet accepts.
    address public immutable owner;

    /// @param owner_ The signing key.
    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice ERC-1271: whether `signature` is the owner's over `hash`.
    /// @param hash The signed digest.
    /// @param signature A 65-byte ECDSA signature.
    /// @return magicValue 0x1626ba7e when valid, 0xffffffff otherwise.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4 magicValue) {
        (address signer, ECDSA.RecoverError failure, ) = ECDSA.tryRecover(hash, signature);
        return failure == ECDSA.RecoverError.NoError && signer == owner ? MAGIC_VALUE : bytes4(0xffffffff);
    }
}
