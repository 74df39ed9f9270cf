// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title ForgedSkipWallet
/// @notice Test-only ERC-1271 code for a taker's own address (an EOA's EIP-7702 delegation; tests put
/// it there with `hardhat_setCode`), as the third audit's proof of concept: it accepts the address's
/// own key's signatures until `fuse`; from that timestamp on it burns nearly all the gas it is given,
/// then reverts with the bytes of the router's own `SwapFeaturePaused(3)`, which Permit2 passes up as
/// the order's revert reason. Never deployed by the devnet.
contract ForgedSkipWallet {
    /// @notice The router's error, declared here so that this wallet reverts with its exact bytes.
    /// @param featureId The feature the forged pause names.
    error SwapFeaturePaused(uint128 featureId);

    /// @notice ERC-1271's answer for a valid signature (`isValidSignature.selector`).
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    /// @notice Gas left unburnt so that the forged revert still gets out.
    uint256 internal constant REVERT_RESERVE = 3_000;

    /// @notice The block timestamp from which every signature check forges a paused router.
    uint256 public immutable fuse;

    /// @param fuse_ The timestamp the wallet turns hostile at.
    constructor(uint256 fuse_) {
        fuse = fuse_;
    }

    /// @notice Before `fuse`: whether the address's own key signed `hash`. From `fuse` on: burns its
    /// gas down to REVERT_RESERVE, then reverts with SwapFeaturePaused(3).
    /// @param hash The signed digest.
    /// @param signature A 65-byte ECDSA signature.
    /// @return magicValue 0x1626ba7e when valid, 0xffffffff otherwise.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4 magicValue) {
        if (block.timestamp >= fuse) {
            uint256 spin = 0;
            while (gasleft() > REVERT_RESERVE) {
                spin = uint256(keccak256(abi.encode(spin, hash)));
            }
            revert SwapFeaturePaused(3);
        }
        (address signer, ECDSA.RecoverError failure, ) = ECDSA.tryRecover(hash, signature);
        return failure == ECDSA.RecoverError.NoError && signer == address(this) ? MAGIC_VALUE : bytes4(0xffffffff);
    }
}
