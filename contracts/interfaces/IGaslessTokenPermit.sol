// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IGaslessBatchSwapRouter} from "./IGaslessBatchSwapRouter.sol";

/// @title IGaslessTokenPermit
/// @notice Feature 3, gasless beyond the first version: a first trade with no ETH (the sell token's
/// EIP-2612 `permit` approves Permit2 in the same transaction as the swap) and takers that are
/// smart-contract wallets (ERC-1271 signatures of any length up to MAX_CONTRACT_SIGNATURE_BYTES).
/// @dev Both entry points settle one `GaslessOrder` exactly as `swapGasless` does (same witness, same
/// Permit2 transfer of sell amount plus fee, same RelayerFeePaid and SwapSettled) and differ only in
/// what comes before it, and in the signature-length rule:
/// - a taker without code (an EOA) must sign exactly 65 bytes, as `swapGasless` requires;
/// - a taker with code may sign 1 to MAX_CONTRACT_SIGNATURE_BYTES bytes, which Permit2 hands to the
///   taker's `isValidSignature` (ERC-1271). The bound caps what the calldata of a relayed signature
///   costs the submitter.
/// The token permit is called with at most TOKEN_PERMIT_GAS and its failure is tolerated when the
/// allowance it grants is already there: whoever copies the permit from the mempool and lands it
/// first only approves Permit2 for the taker, and the swap still settles.
interface IGaslessTokenPermit is IGaslessBatchSwapRouter {
    /// @notice An EIP-2612 permit the taker signed for the sell token: owner = taker, spender = Permit2.
    struct TokenPermit {
        uint256 value;
        uint256 deadline;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @notice Before the swap of `quoteId`, the taker's EIP-2612 permit of `token` to Permit2 was
    /// `applied` (true) or failed while the allowance it grants was already there (false: someone
    /// submitted it first, or the taker approved another way).
    event GaslessTokenPermitUsed(bytes32 indexed quoteId, address indexed token, address indexed taker, bool applied);

    /// @notice The token's permit failed and `taker`'s Permit2 allowance of `token`, `allowance`, is
    /// below the `needed` sell amount plus fee: the swap cannot pull its tokens.
    error SwapTokenPermitFailed(address token, address taker, uint256 allowance, uint256 needed);
    /// @notice A smart-wallet signature must be 1 to `max` bytes long; it was `length`.
    error SwapContractSignatureLength(uint256 length, uint256 max);

    /// @notice Calls the sell token's EIP-2612 `permit(taker, Permit2, value, deadline, v, r, s)`, then
    /// settles `order` as `swapGasless` does: one transaction approves and swaps.
    /// @dev The permit runs with at most TOKEN_PERMIT_GAS. If it reverts (already used by a copier, a
    /// bad signature, a token without EIP-2612) the swap goes on when the taker's allowance to Permit2
    /// covers sell amount plus fee, and otherwise reverts with SwapTokenPermitFailed. A taker with
    /// code may sign the order with ERC-1271 (see the contract notes).
    /// @param order The signed order (the same struct a batch lists).
    /// @param tokenPermit The taker's EIP-2612 permit of the sell token to Permit2.
    /// @return buyAmount What the recipient received.
    function swapGaslessWithTokenPermit(GaslessOrder calldata order, TokenPermit calldata tokenPermit)
        external
        returns (uint256 buyAmount);

    /// @notice Settles `order` as `swapGasless` does, for a taker that is a smart-contract wallet:
    /// its signature may be 1 to MAX_CONTRACT_SIGNATURE_BYTES bytes, checked by Permit2 through the
    /// taker's ERC-1271 `isValidSignature`. A taker without code keeps the exact 65-byte rule.
    /// @param order The signed order.
    /// @return buyAmount What the recipient received.
    function swapGaslessFromContract(GaslessOrder calldata order) external returns (uint256 buyAmount);

    /// @notice The longest signature a taker with code may give.
    /// @return The cap, in bytes.
    function MAX_CONTRACT_SIGNATURE_BYTES() external view returns (uint256); // solhint-disable-line func-name-mixedcase

    /// @notice The most gas the token's `permit` call may use.
    /// @return The gas.
    function TOKEN_PERMIT_GAS() external view returns (uint256); // solhint-disable-line func-name-mixedcase
}
