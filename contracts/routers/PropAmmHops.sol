// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPropAmm} from "../interfaces/IPropAmm.sol";
import {PropAmmAllowlist} from "../registry/PropAmmAllowlist.sol";
import {RouterFunds} from "./RouterFunds.sol";

/// @title PropAmmHops
/// @notice The router's propAMM venue: one SWAP_PROPAMM hop (`0x07 [pair 20][tokenOut 20]`) through a
/// proprietary AMM's standard `swapExactIn`, under the live service's security model.
/// @dev Security model, in the order the hop runs:
/// 1. Only an allowlisted (pair, `swapExactIn`) is called: the allowlist is an immutable of the router.
/// 2. The tokens are the pair's configured ones (tokenIn and tokenOut must be token0 and token1, in
///    either order; the direction follows from them). Allowlisted pairs are never tokens, so no route
///    makes the router approve or transfer through a venue.
/// 3. The router approves exactly `amountIn`, calls, and afterwards requires the allowance to be back
///    at zero: the venue took exactly the hop's input, and keeps no approval (a leftover allowance
///    reverts the hop, which undoes the approval with everything else).
/// 4. The output is measured as the receiver's balance change, never taken from the venue's word, and
///    must be at least what the venue said it paid (the hop's minimum, see `_swapPropAmm`).
/// 5. An allowlisted pair is never a routable token, in any route on any venue (`_refusePair`), and a
///    pair is called only when the router's filter copy has its bit. One exception, by design: the
///    currencies between the ends of an exact-output V4 run are not checked, since nothing transfers
///    them (they net to zero inside the PoolManager) and no propAMM runs in exact output.
/// Exact input only: exact-output routes never contain this action.
abstract contract PropAmmHops is RouterFunds {
    using SafeERC20 for IERC20;

    /// @notice The allowlist of propAMMs this router may call.
    PropAmmAllowlist public immutable propAmmAllowlist;

    /// @notice The (pair, swapExactIn) is not on the allowlist.
    error SwapPropAmmNotAllowed(address pair);
    /// @notice tokenIn and tokenOut are not the pair's configured token0 and token1.
    error SwapPropAmmTokenMismatch(address pair, address tokenIn, address tokenOut);
    /// @notice The propAMM left `allowanceLeft` of the approval unused: it did not take exactly the input.
    error SwapPropAmmInputLeft(address pair, uint256 allowanceLeft);
    /// @notice The receiver got `received`, less than the `claimed` output (or nothing at all).
    error SwapPropAmmShortPaid(address pair, uint256 claimed, uint256 received);
    /// @notice The route names `token` as a token, but it is an allowlisted propAMM pair.
    error SwapTokenIsPropAmm(address token);

    /// @notice The router copied the allowlist's pair filter (`sync()`), folded to 128 bits: bit
    /// `uint160(account) & 127` is set while some allowlisted pair's address ends in those 7 bits.
    event PropAmmPairFilterSynced(uint128 pairFilter);

    /// @param allowlist The propAMM allowlist (see PropAmmAllowlist); zero for a router version that
    /// calls no propAMM (the versions before propAMMs, which share this interpreter).
    constructor(PropAmmAllowlist allowlist) {
        propAmmAllowlist = allowlist;
    }

    /// @dev The allowlist's `pairFilter` folded to the 128 bits the status slot keeps (RegistryGate):
    /// read on `sync()`, which the allowlist calls on its features' routers after every change and
    /// the registry on every activation. A bit the copy lacks is a pair this router never calls
    /// (`_swapPropAmm` refuses it), so a stale copy can only cost an extra `isPair` read, never let a
    /// pair be both a venue and a token of this router.
    function _syncPairFilter() internal virtual override returns (uint128 filter) {
        PropAmmAllowlist allowlist = propAmmAllowlist;
        if (address(allowlist) == address(0)) return 0;
        uint256 full = allowlist.pairFilter();
        filter = uint128(full) | uint128(full >> 128);
        emit PropAmmPairFilterSynced(filter);
    }

    /// @dev Whether `account`'s bit is set in the router's filter copy (maybe a pair; clear: no pair
    /// this router may call).
    function _mayBePair(address account) private view returns (bool) {
        return (_pairFilterCopy() >> (uint160(account) & 127)) & 1 != 0;
    }

    /// @dev Reverts when `token` is an allowlisted pair: the router must never approve, transfer, or read
    /// balances through a contract it may also call as a venue. A bit test on the router's own filter
    /// copy (a warm slot, no other account read); only a set bit asks the allowlist's exact `isPair`.
    function _refusePair(address token) internal view {
        if (!_mayBePair(token)) return;
        address allowlist = address(propAmmAllowlist);
        bytes4 isPairSelector = PropAmmAllowlist.isPair.selector;
        bool pair;
        // By hand (scratch space only): the ABI coder's copies would cost the routers' size headroom.
        // The allowlist is this router's immutable, not a caller's; a set bit implies it is not zero.
        assembly ("memory-safe") {
            mstore(0, isPairSelector)
            mstore(4, token)
            if iszero(and(gt(returndatasize(), 0x1f), staticcall(gas(), allowlist, 0, 0x24, 0, 0x20))) {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
            pair := iszero(iszero(mload(0)))
        }
        if (pair) revert SwapTokenIsPropAmm(token);
    }

    /// @dev One SWAP_PROPAMM hop whose opcode is at byte `offset` (the caller checked the width):
    /// sells `amountIn` of `tokenIn`, held by this router, and has the output paid to `to` (this router,
    /// or the recipient when the hop ends the route). Per-hop minimum: the route format carries none,
    /// as for V2 hops; the venue is asked for at least 1 unit (`amountOutMin = 1`, deadline this block),
    /// and the measured receipt must cover what the venue returned. Slippage over the whole route is the
    /// order's `minBuyAmount`, checked at settlement. A zero input (a split leg rounded to nothing) is
    /// checked but not traded.
    /// @return tokenOut The hop's output token.
    /// @return amountOut What `to` received.
    function _swapPropAmm(bytes calldata actions, uint256 offset, address tokenIn, uint256 amountIn, address to)
        internal
        returns (address tokenOut, uint256 amountOut)
    {
        address pair;
        assembly ("memory-safe") {
            let start := add(add(actions.offset, offset), 1)
            pair := shr(96, calldataload(start))
            tokenOut := shr(96, calldataload(add(start, 20)))
        }
        // A pair outside the router's filter copy is never called (see `_syncPairFilter`); a router
        // without an allowlist has an empty copy and refuses every hop here.
        if (!_mayBePair(pair)) revert SwapPropAmmNotAllowed(pair);
        (address token0, address token1) = propAmmAllowlist.tokensOf(pair, IPropAmm.swapExactIn.selector);
        if (token0 == address(0)) revert SwapPropAmmNotAllowed(pair);
        bool zeroForOne = tokenIn == token0;
        if (zeroForOne ? tokenOut != token1 : (tokenIn != token1 || tokenOut != token0)) {
            revert SwapPropAmmTokenMismatch(pair, tokenIn, tokenOut);
        }
        if (amountIn == 0) return (tokenOut, 0);

        uint256 before = _balanceOf(tokenOut, to);
        IERC20(tokenIn).forceApprove(pair, amountIn);
        uint256 claimed = IPropAmm(pair).swapExactIn(zeroForOne, amountIn, 1, to, block.timestamp);
        uint256 allowanceLeft = IERC20(tokenIn).allowance(address(this), pair);
        if (allowanceLeft != 0) revert SwapPropAmmInputLeft(pair, allowanceLeft);
        uint256 balance = _balanceOf(tokenOut, to);
        // A receiver whose balance fell (the venue cannot pull from it, but a token could) got nothing.
        amountOut = balance > before ? balance - before : 0;
        if (amountOut < claimed || amountOut == 0) revert SwapPropAmmShortPaid(pair, claimed, amountOut);
    }
}
