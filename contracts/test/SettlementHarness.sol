// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IExactOutputSettlement} from "../interfaces/IExactOutputSettlement.sol";
import {ISwapSettlement} from "../interfaces/ISwapSettlement.sol";
import {OrderWitnessHash} from "../libraries/OrderWitnessHash.sol";
import {RouteActions} from "../libraries/RouteActions.sol";
import {V2PairAddress} from "../libraries/V2PairAddress.sol";
import {V2SwapMath} from "../libraries/V2SwapMath.sol";

/// @title SettlementHarness
/// @notice Test-only window onto the routers' libraries, for differential tests against independent
/// implementations (Router02's math, ethers' EIP-712, the holder's parser). Never deployed by the devnet.
contract SettlementHarness {
    /// @notice V2SwapMath.getAmountOut as the routers run it.
    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut, uint256 feeBps)
        external
        pure
        returns (uint256)
    {
        return V2SwapMath.getAmountOut(amountIn, reserveIn, reserveOut, feeBps);
    }

    /// @notice V2SwapMath.getAmountIn as exact-output routes run it.
    function getAmountIn(uint256 amountOut, uint256 reserveIn, uint256 reserveOut, uint256 feeBps)
        external
        pure
        returns (uint256)
    {
        return V2SwapMath.getAmountIn(amountOut, reserveIn, reserveOut, feeBps);
    }

    /// @notice The ExactOutputWitness struct hash, for the SDK's typed data to be checked against.
    function hashExactOutputWitness(IExactOutputSettlement.ExactOutputParams calldata params) external pure returns (bytes32) {
        return OrderWitnessHash.hash(OrderWitnessHash.exactOutput(), _asSwapParams(params));
    }

    /// @notice The GaslessExactOutputWitness struct hash, for differential tests against ethers.
    function hashGaslessExactOutputWitness(
        IExactOutputSettlement.ExactOutputParams calldata params,
        uint256 relayerFee,
        address relayerFeeRecipient
    ) external pure returns (bytes32) {
        return OrderWitnessHash.hashGasless(OrderWitnessHash.gaslessExactOutput(), _asSwapParams(params), relayerFee, relayerFeeRecipient);
    }

    /// @notice V2PairAddress.pairFor as the routers run it.
    function pairFor(address factory, bytes32 initCodeHash, address tokenA, address tokenB)
        external
        pure
        returns (address)
    {
        return V2PairAddress.pairFor(factory, initCodeHash, tokenA, tokenB);
    }

    /// @notice The SwapWitness struct hash the taker router signs over.
    function hashSwapWitness(ISwapSettlement.SwapParams calldata params) external pure returns (bytes32) {
        return OrderWitnessHash.hash(OrderWitnessHash.exactInput(), params);
    }

    /// @notice The GaslessSwapWitness struct hash the gasless router signs over.
    function hashGaslessWitness(ISwapSettlement.SwapParams calldata params, uint256 relayerFee, address feeRecipient)
        external
        pure
        returns (bytes32)
    {
        return OrderWitnessHash.hashGasless(OrderWitnessHash.gaslessExactInput(), params, relayerFee, feeRecipient);
    }

    /// @notice Decodes a `swapWithAllowance(SwapParams)` call exactly as the router's ABI decoder does
    /// (same selector, same calldata, same 20 appended bytes), and applies the router's input rule.
    /// @return sellToken The decoded sell token.
    /// @return sellAmount The decoded sell amount.
    /// @return destination The first pair when the route starts with a swap, else this contract.
    function swapWithAllowance(ISwapSettlement.SwapParams calldata params)
        external
        view
        returns (address sellToken, uint256 sellAmount, address destination)
    {
        destination = _inputDestination(params.actions);
        return (params.sellToken, params.sellAmount, destination);
    }

    /// @notice The router's input rule (TakerSwapSettlement.inputDestination), which the allowance
    /// holder asks its operator for.
    /// @param actions The route's packed actions.
    /// @return The first pair when the route starts with a SWAP_V2, else this contract.
    function inputDestination(bytes calldata actions) external view returns (address) {
        return _inputDestination(actions);
    }

    function _inputDestination(bytes calldata actions) private view returns (address destination) {
        destination = address(this);
        if (
            actions.length >= RouteActions.SWAP_V2_WIDTH
                && RouteActions.opcodeAtInBounds(actions, 0) == RouteActions.SWAP_V2
        ) {
            destination = RouteActions.pairAt(actions, 0);
        }
    }

    /// @dev An exact-output order read as the SwapParams it is laid out like, as the routers read it.
    function _asSwapParams(IExactOutputSettlement.ExactOutputParams calldata params)
        private
        pure
        returns (ISwapSettlement.SwapParams calldata swapParams)
    {
        assembly ("memory-safe") {
            swapParams := params
        }
    }
}
