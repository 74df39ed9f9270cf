// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IUniswapV2PairMinimal} from "../interfaces/IUniswapV2PairMinimal.sol";
import {RouteActions} from "../libraries/RouteActions.sol";
import {V2PairAddress} from "../libraries/V2PairAddress.sol";
import {V2SwapMath} from "../libraries/V2SwapMath.sol";
import {RouterFunds} from "./RouterFunds.sol";

/// @title V2Hops
/// @notice Hops on the router's Uniswap-V2-style venue, in either direction of a pair: a hop checked
/// against the venue, priced at the pair's reserves and swapped; a split leg (hops that hand their
/// output straight to the next pair); and a SPLIT (legs sharing one input).
/// @dev Shared by the exact-input pass (RouteExecutor) and the exact-output one (ExactOutputExecutor),
/// which prices the same checked hops backwards and runs legs with its own inputs. `_split` sits here
/// rather than in RouteExecutor because solidity-coverage's via-IR build lost one of its branches there.
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

    /// @dev A SPLIT (layout in ISwapSettlement; `RouteActions.splitWidth` already checked it). Its output
    /// never sits in a pair (`inPair` is always false): legs end in the recipient or here. The running
    /// amount sits in this router: a split is never the target of a previous swap's hand-off, and a route
    /// starting with one has its sell token delivered here. Legs pay the recipient directly when the split
    /// ends the route in the buy token; the recipient's balance is then measured once around all legs.
    function _split(
        bytes calldata actions,
        address buyToken,
        address recipient,
        address tokenIn,
        uint256 amountIn,
        uint256 offset,
        uint256 nextOffset
    ) internal returns (address tokenOut, uint256 amountOut, bool, /* inPair: always false */ bool paidOut) {
        uint256 legs = RouteActions.byteAt(actions, offset + 1);
        uint256 cursor = offset + RouteActions.SPLIT_HEADER_WIDTH;
        // The first leg's last hop names the token every leg must end in.
        uint256 firstHops = RouteActions.byteAt(actions, cursor + 2);
        (, tokenOut,) = RouteActions.decodeSwapV2(
            actions, cursor + RouteActions.LEG_HEADER_WIDTH + (firstHops - 1) * RouteActions.HOP_WIDTH - 1
        );
        paidOut = nextOffset == actions.length && tokenOut == buyToken;
        address destination = paidOut ? recipient : address(this);
        uint256 before = paidOut ? _balanceOf(tokenOut, recipient) : 0;
        uint256 remaining = amountIn;
        for (uint256 leg; leg < legs; ++leg) {
            uint256 hops = RouteActions.byteAt(actions, cursor + 2);
            // Shares add up to 10,000, so the other legs' amounts never exceed what remains.
            uint256 legIn = leg + 1 == legs ? remaining : (amountIn * RouteActions.uint16At(actions, cursor)) / V2SwapMath.BPS;
            remaining -= legIn;
            (address legOut, uint256 legAmount) =
                _runLeg(actions, cursor + RouteActions.LEG_HEADER_WIDTH, hops, tokenIn, legIn, destination);
            if (legOut != tokenOut) revert SwapUnexpectedToken(tokenOut, legOut);
            amountOut += legAmount;
            cursor += RouteActions.LEG_HEADER_WIDTH + hops * RouteActions.HOP_WIDTH;
        }
        // As for a last SWAP_V2: what the recipient received, not what the formula says.
        if (paidOut) amountOut = _balanceOf(tokenOut, recipient) - before;
    }

    /// @dev One leg of a split: `hops` hops starting at byte `start`, each handing its output straight
    /// to the next hop's pair, the last one to `destination`. A leg whose share rounds to nothing is
    /// checked but not traded (a pair refuses a zero-output swap).
    function _runLeg(
        bytes calldata actions,
        uint256 start,
        uint256 hops,
        address token,
        uint256 amount,
        address destination
    ) internal returns (address, uint256) {
        for (uint256 hop; hop < hops; ++hop) {
            uint256 at = start + hop * RouteActions.HOP_WIDTH - 1;
            (address pair, address tokenOut, uint256 amountOut) = _priceHop(actions, at, token, amount);
            if (amount != 0) {
                // The pair would refuse a swap paying nothing; say which leg is too small instead.
                if (amountOut == 0) revert SwapSplitLegTooSmall(pair, amount);
                if (hop == 0) IERC20(token).safeTransfer(pair, amount);
                address to = hop + 1 == hops ? destination : RouteActions.pairAt(actions, at + RouteActions.HOP_WIDTH);
                (uint256 amount0Out, uint256 amount1Out) = token < tokenOut ? (uint256(0), amountOut) : (amountOut, uint256(0));
                _pairSwap(pair, amount0Out, amount1Out, to);
            }
            (token, amount) = (tokenOut, amountOut);
        }
        return (token, amount);
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
