// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title DevCreate2Deployer
/// @notice Deploys creation code at a CREATE2 address chosen by salt: the devnet mines salts that put
/// Uniswap V4 hooks at addresses whose low bits carry their permission flags.
contract DevCreate2Deployer {
    /// @notice `deployed` was created from code hashing to `initCodeHash` with `salt`.
    event Deployed(address indexed deployed, bytes32 indexed salt, bytes32 initCodeHash);

    /// @notice CREATE2 failed (the address is taken, or the constructor reverted).
    error DevCreate2DeployFailed(bytes32 salt);

    /// @notice Creates `initCode` at keccak256(0xff ++ this ++ salt ++ keccak256(initCode))[12:].
    /// @param salt The CREATE2 salt.
    /// @param initCode Creation code with its constructor arguments.
    /// @return deployed The new contract's address.
    function deploy(bytes32 salt, bytes calldata initCode) external returns (address deployed) {
        bytes memory code = initCode;
        assembly ("memory-safe") {
            deployed := create2(0, add(code, 0x20), mload(code), salt)
        }
        if (deployed == address(0)) revert DevCreate2DeployFailed(salt);
        emit Deployed(deployed, salt, keccak256(code));
    }
}
