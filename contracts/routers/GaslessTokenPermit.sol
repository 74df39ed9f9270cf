// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IGaslessTokenPermit} from "../interfaces/IGaslessTokenPermit.sol";
import {OrderWitnessHash} from "../libraries/OrderWitnessHash.sol";
import {GaslessSwapSettlement} from "./GaslessSwapSettlement.sol";

/// @title GaslessTokenPermit
/// @notice The feature-3 router's entry points for a first trade with no ETH (EIP-2612 permit and
/// swap in one transaction) and for smart-contract wallet takers (ERC-1271).
/// @dev Abstract: GaslessBatchSwapRouter inherits it. The settlement is `_swapGasless`'s, with the
/// signature-length rule of IGaslessTokenPermit instead of the exact 65 bytes.
abstract contract GaslessTokenPermit is IGaslessTokenPermit, GaslessSwapSettlement {
    using SafeERC20 for IERC20;

    /// @inheritdoc IGaslessTokenPermit
    /// @dev Room for a multisig's several signatures or a passkey's WebAuthn data (a few hundred
    /// bytes); calldata past it costs the relayer for nothing.
    uint256 public constant MAX_CONTRACT_SIGNATURE_BYTES = 2048;
    /// @inheritdoc IGaslessTokenPermit
    /// @dev OpenZeppelin's permit uses about 55,000 with a fresh allowance slot and a fresh nonce; a
    /// token with a costlier permit (a proxy, ERC-1271 owners) still fits, a hostile one burns no more.
    uint256 public constant TOKEN_PERMIT_GAS = 150_000;

    /// @inheritdoc IGaslessTokenPermit
    function swapGaslessWithTokenPermit(GaslessOrder calldata order, TokenPermit calldata tokenPermit)
        external
        settles
        returns (uint256 buyAmount)
    {
        address token = address(uint160(_field(order.params, 0)));
        // The native asset has no permit (and no code to call): refused as `swapGasless` refuses it.
        if (token == NATIVE) revert SwapNativeSellNotGasless();
        bool applied;
        try IERC20Permit(token).permit{gas: TOKEN_PERMIT_GAS}(
            order.taker, address(permit2), tokenPermit.value, tokenPermit.deadline, tokenPermit.v, tokenPermit.r, tokenPermit.s
        ) {
            applied = true;
        } catch {
            // A copier may have landed this very permit first: the allowance it grants is what counts.
            uint256 allowance = IERC20(token).allowance(order.taker, address(permit2));
            uint256 needed = _field(order.params, 1) + order.relayerFee;
            if (allowance < needed) revert SwapTokenPermitFailed(token, order.taker, allowance, needed);
        }
        emit GaslessTokenPermitUsed(order.params.quoteId, token, order.taker, applied);
        buyAmount = _swapGaslessAnySigner(order);
    }

    /// @inheritdoc IGaslessTokenPermit
    function swapGaslessFromContract(GaslessOrder calldata order) external settles returns (uint256 buyAmount) {
        buyAmount = _swapGaslessAnySigner(order);
    }

    /// @dev `_swapGasless` of one order sent by msg.sender, with the length rule of IGaslessTokenPermit:
    /// exactly 65 bytes for a taker without code, 1 to MAX_CONTRACT_SIGNATURE_BYTES for one with code.
    function _swapGaslessAnySigner(GaslessOrder calldata order) private returns (uint256 buyAmount) {
        (address sellToken, uint256 sellAmount, bytes calldata actions) = _checkOrder(order.params);
        bytes calldata signature = order.signature;
        if (order.taker.code.length == 0) {
            _checkSignatureLength(signature);
        } else if (signature.length == 0 || signature.length > MAX_CONTRACT_SIGNATURE_BYTES) {
            revert SwapContractSignatureLength(signature.length, MAX_CONTRACT_SIGNATURE_BYTES);
        }
        if (sellToken == NATIVE) revert SwapNativeSellNotGasless();
        uint256 relayerFee = order.relayerFee;
        address relayerFeeRecipient = order.relayerFeeRecipient;
        if (relayerFee != 0 && relayerFeeRecipient == address(0)) revert SwapZeroAddress();
        permit2.permitWitnessTransferFrom(
            ISignatureTransfer.PermitTransferFrom({
                permitted: ISignatureTransfer.TokenPermissions({token: sellToken, amount: sellAmount + relayerFee}),
                nonce: order.nonce,
                deadline: order.params.deadline
            }),
            ISignatureTransfer.SignatureTransferDetails({to: address(this), requestedAmount: sellAmount + relayerFee}),
            order.taker,
            OrderWitnessHash.hashGasless(OrderWitnessHash.gaslessExactInput(), order.params, relayerFee, relayerFeeRecipient),
            OrderWitnessHash.GASLESS_WITNESS_TYPE_STRING,
            signature
        );
        if (relayerFee != 0) {
            IERC20(sellToken).safeTransfer(relayerFeeRecipient, relayerFee);
            emit RelayerFeePaid(order.params.quoteId, relayerFeeRecipient, msg.sender, sellToken, relayerFee);
        }
        address destination = _inputDestination(actions);
        if (destination != address(this)) IERC20(sellToken).safeTransfer(destination, sellAmount);
        buyAmount = _executeAndSettle(order.params, actions, order.taker, sellToken, sellAmount, destination);
    }
}
