// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title V2PairAddress
/// @notice The address a Uniswap-V2-style factory deploys the pair of two tokens at (CREATE2).
/// @dev Pure arithmetic, no call: checking a route's pair against the factory costs two hashes.
library V2PairAddress {
    /// @notice The pair of `tokenA` and `tokenB` (in either order) made by `factory`, whose pair
    /// creation code hashes to `initCodeHash`.
    function pairFor(address factory, bytes32 initCodeHash, address tokenA, address tokenB)
        internal
        pure
        returns (address pair)
    {
        (address token0, address token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            // salt = keccak256(abi.encodePacked(token0, token1))
            mstore(ptr, shl(96, token0))
            mstore(add(ptr, 0x14), shl(96, token1))
            let salt := keccak256(ptr, 0x28)
            // keccak256(0xff ++ factory ++ salt ++ initCodeHash), last 20 bytes
            mstore(ptr, or(shl(248, 0xff), shl(88, factory)))
            mstore(add(ptr, 0x15), salt)
            mstore(add(ptr, 0x35), initCodeHash)
            pair := and(keccak256(ptr, 0x55), 0xffffffffffffffffffffffffffffffffffffffff)
        }
    }
}
