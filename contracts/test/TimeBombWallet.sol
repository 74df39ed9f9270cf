// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title TimeBombWallet
/// @notice Test-only ERC-1271 code for a taker's own address (an EOA's EIP-7702 delegation; tests put it
/// there with `hardhat_setCode`): it accepts the address's own key's signatures until `fuse`, and from
/// that timestamp on burns every unit of gas it is given. A simulation before the fuse settles the
/// order; the same order mined after it burns whatever gas the relayer let it have. Never deployed by
/// the devnet.
contract TimeBombWallet {
    /// @notice ERC-1271's answer for a valid signature (`isValidSignature.selector`).
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;

    /// @notice The block timestamp from which every signature check burns all its gas.
    uint256 public immutable fuse;

    /// @param fuse_ The timestamp the wallet turns hostile at.
    constructor(uint256 fuse_) {
        fuse = fuse_;
    }

    /// @notice Before `fuse`: whether the address's own key signed `hash`. From `fuse` on: never returns.
    /// @param hash The signed digest.
    /// @param signature A 65-byte ECDSA signature.
    /// @return magicValue 0x1626ba7e when valid, 0xffffffff otherwise.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4 magicValue) {
        if (block.timestamp >= fuse) {
            uint256 spin = 0;
            while (gasleft() > 0) {
                spin = uint256(keccak256(abi.encode(spin, hash)));
            }
            return bytes4(uint32(spin));
        }
        (address signer, ECDSA.RecoverError failure, ) = ECDSA.tryRecover(hash, signature);
        return failure == ECDSA.RecoverError.NoError && signer == address(this) ? MAGIC_VALUE : bytes4(0xffffffff);
    }
}
