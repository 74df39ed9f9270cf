// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IUniswapV2PairMinimal} from "../../interfaces/IUniswapV2PairMinimal.sol";
import {RouteActions} from "../../libraries/RouteActions.sol";
import {V2PairAddress} from "../../libraries/V2PairAddress.sol";
import {V2SwapMath} from "../../libraries/V2SwapMath.sol";
import {RouterFunds} from "../RouterFunds.sol";

/// @title V2Hops
/// @notice The Uniswap-V2 venue module: SWAP_V2 hops on the router's Uniswap-V2-style venue, in either
/// direction of a pair, each checked against the venue, priced at the pair's reserves and swapped.
/// @dev Shared by the exact-input pass (RouteExecutor, through VenueHops' dispatch) and the exact-output
/// one (ExactOutputExecutor), which prices the same checked hops backwards. A V2 pair takes its input
/// before the swap call, so the previous hop hands its output straight to it (VenueHops' `_hopInput`).
abstract contract V2Hops is RouterFunds {
    using SafeERC20 for IERC20;

    /// @notice The only factory whose pairs routes may use.
    address public immutable v2Factory;
    bytes32 private immutable _pairInitCodeHash;
    /// @notice The pool fee of every pair of `v2Factory`, in bps; a route stating another is refused.
    uint256 public immutable v2FeeBps;

    /// @param factory The V2 factory.
    /// @param pairInitCodeHash Its pair init-code hash.
    /// @param feeBps Its pool fee, in bps (30 for Uniswap V2).
    constructor(address factory, bytes32 pairInitCodeHash, uint16 feeBps) {
        if (factory == address(0)) revert SwapZeroAddress();
        if (feeBps >= V2SwapMath.BPS) revert SwapFeeTooHigh(feeBps);
        v2Factory = factory;
        _pairInitCodeHash = pairInitCodeHash;
        v2FeeBps = feeBps;
    }

    /// @dev Decodes the hop whose operands follow byte `offset` (a SWAP_V2's opcode, or the byte before
    /// a split leg's hop), checks it, and prices `amountIn` of `tokenIn` through it at its reserves.
    function _priceHop(bytes calldata actions, uint256 offset, address tokenIn, uint256 amountIn)
        internal
        view
        returns (address pair, address tokenOut, uint256 amountOut)
    {
        (pair, tokenOut) = _checkHop(actions, offset, tokenIn);
        (uint256 reserve0, uint256 reserve1) = _reserves(pair);
        bool zeroForOne = tokenIn < tokenOut;
        amountOut = zeroForOne
            ? V2SwapMath.getAmountOut(amountIn, reserve0, reserve1, v2FeeBps)
            : V2SwapMath.getAmountOut(amountIn, reserve1, reserve0, v2FeeBps);
    }

    /// @dev Decodes and checks the hop whose operands follow byte `offset`; exact-output routes price
    /// hops backwards after the same checks.
    function _checkHop(bytes calldata actions, uint256 offset, address tokenIn)
        internal
        view
        returns (address pair, address tokenOut)
    {
        uint256 feeBps;
        (pair, tokenOut, feeBps) = RouteActions.decodeSwapV2(actions, offset);
        // The stated fee is only a claim: the pool fee is the venue's, and a route must say so.
        if (feeBps != v2FeeBps) revert SwapPoolFeeMismatch(feeBps, v2FeeBps);
        // Pools trade ERC20s only: the native asset must be wrapped first and unwrapped after.
        if (tokenIn == NATIVE) revert SwapUnexpectedToken(address(weth), NATIVE);
        if (tokenOut == NATIVE) revert SwapUnexpectedToken(address(weth), NATIVE);
        // Only the factory's own pair of (tokenIn, tokenOut): a look-alike pair could report any
        // reserves, and a real pair of other tokens would take the input and pay out something else.
        address expected = V2PairAddress.pairFor(v2Factory, _pairInitCodeHash, tokenIn, tokenOut);
        if (pair != expected) revert SwapUnknownPair(pair, expected);
    }

    /// @dev One SWAP_V2 hop at `offset`: `amountIn` of `tokenIn`, already in the pair when `inPair` (else
    /// held by this router), swapped at the pair's reserves, the output to `to`. In a split leg
    /// (`inLeg`) a hop that would pay nothing is refused with the leg's own error.
    function _swapV2(
        bytes calldata actions,
        uint256 offset,
        address tokenIn,
        uint256 amountIn,
        bool inPair,
        address to,
        bool inLeg
    ) internal returns (uint256 amountOut) {
        address pair;
        address tokenOut;
        (pair, tokenOut, amountOut) = _priceHop(actions, offset, tokenIn, amountIn);
        // The pair would refuse a swap paying nothing; say which leg is too small instead.
        if (inLeg && amountOut == 0) revert SwapSplitLegTooSmall(pair, amountIn);
        // For a first hop the sell token was already delivered to `pair` (before `_priceHop` checked
        // it); a revert there undoes that delivery with everything else.
        if (!inPair) IERC20(tokenIn).safeTransfer(pair, amountIn);
        (uint256 amount0Out, uint256 amount1Out) = tokenIn < tokenOut ? (uint256(0), amountOut) : (amountOut, uint256(0));
        _pairSwap(pair, amount0Out, amount1Out, to);
    }

    /// @dev `getReserves` without the ABI decoder: the hot path reads it once per hop.
    function _reserves(address pair) internal view returns (uint256 reserve0, uint256 reserve1) {
        assembly ("memory-safe") {
            mstore(0, 0x0902f1ac00000000000000000000000000000000000000000000000000000000)
            if iszero(and(gt(returndatasize(), 0x3f), staticcall(gas(), pair, 0, 4, 0, 0x40))) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            reserve0 := mload(0)
            reserve1 := mload(0x20)
        }
    }

    /// @dev `swap(amount0Out, amount1Out, to, "")` encoded by hand, once per hop on the hot path.
    function _pairSwap(address pair, uint256 amount0Out, uint256 amount1Out, address to) internal {
        bytes4 selector = IUniswapV2PairMinimal.swap.selector;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 0x04), amount0Out)
            mstore(add(ptr, 0x24), amount1Out)
            mstore(add(ptr, 0x44), to)
            mstore(add(ptr, 0x64), 0x80)
            mstore(add(ptr, 0x84), 0)
            if iszero(call(gas(), pair, 0, ptr, 0xa4, 0, 0)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
        }
    }
}
