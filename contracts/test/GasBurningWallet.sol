// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title GasBurningWallet
/// @notice Test-only ERC-1271 "wallet" that burns every unit of gas it is given before answering: what
/// an attacker deploys to make a server's signature check cost the node as much as it allows. Never
/// deployed by the devnet.
contract GasBurningWallet {
    /// @notice Burns all the gas of the call; it never returns.
    /// @return magicValue Never returned: the call runs out of gas.
    function isValidSignature(bytes32, bytes calldata) external view returns (bytes4 magicValue) {
        uint256 spin = 0;
        while (gasleft() > 0) {
            spin = uint256(keccak256(abi.encode(spin, address(this).balance)));
        }
        return bytes4(uint32(spin));
    }
}
