// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title DevSmartWallet
/// @notice A minimal smart-contract wallet for the devnet: one owner key runs its calls and signs for
/// it through ERC-1271. Devnet only: no recovery, no modules, no replay domain of its own.
/// @dev A signature is the owner's ECDSA signature of the hash, either 65 bytes (r, s, v) or 64 bytes
/// (ERC-2098 compact r, vs): a length an EOA taker may not use with the router, which shows that the
/// wallet, not the router, decides what a valid signature is.
contract DevSmartWallet {
    /// @notice ERC-1271's answer for a valid signature (`isValidSignature.selector`).
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;

    /// @notice The key that runs the wallet's calls and whose signatures it accepts.
    address public immutable owner;

    /// @notice The wallet called `target` with `value` and `data`.
    event WalletCallExecuted(address indexed target, uint256 value, bytes data);

    /// @notice Only the owner may run the wallet's calls; `caller` is not the owner.
    error DevSmartWalletNotOwner(address caller);
    /// @notice The call to `target` reverted with `reason`.
    error DevSmartWalletCallFailed(address target, bytes reason);

    /// @param owner_ The owner key.
    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Accepts ETH.
    receive() external payable {}

    /// @notice Calls `target` with `value` and `data` from the wallet. Owner only.
    /// @param target The called contract.
    /// @param value The wei sent along.
    /// @param data The calldata.
    /// @return result What the call returned.
    function execute(address target, uint256 value, bytes calldata data) external returns (bytes memory result) {
        if (msg.sender != owner) revert DevSmartWalletNotOwner(msg.sender);
        bool ok;
        (ok, result) = target.call{value: value}(data);
        if (!ok) revert DevSmartWalletCallFailed(target, result);
        emit WalletCallExecuted(target, value, data);
    }

    /// @notice ERC-1271: whether `signature` is the owner's over `hash`.
    /// @param hash The signed digest.
    /// @param signature The owner's 65-byte or 64-byte (ERC-2098) ECDSA signature.
    /// @return magicValue 0x1626ba7e when valid, 0xffffffff otherwise.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4 magicValue) {
        address signer;
        ECDSA.RecoverError failure;
        if (signature.length == 64) {
            (signer, failure, ) = ECDSA.tryRecover(hash, bytes32(signature[:32]), bytes32(signature[32:]));
        } else {
            (signer, failure, ) = ECDSA.tryRecover(hash, signature);
        }
        return failure == ECDSA.RecoverError.NoError && signer == owner ? MAGIC_VALUE : bytes4(0xffffffff);
    }
}
