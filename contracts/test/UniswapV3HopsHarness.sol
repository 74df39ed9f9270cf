// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {UniswapV3Hops} from "../routers/venues/UniswapV3Hops.sol";
import {RouterFunds} from "../routers/RouterFunds.sol";

/// @title UniswapV3HopsHarness
/// @notice Test-only shell around the V3 venue module alone, as a router without exact output would
/// inherit it: no ExactOutputExecutor overrides its exact-output callback. Never deployed by the devnet.
contract UniswapV3HopsHarness is UniswapV3Hops {
    /// @param weth_ Wrapped ether (RouterFunds needs it; unused here).
    /// @param registry_ The registry (RouterFunds needs it; unused here).
    /// @param venues The V3 venues.
    constructor(IWETH9 weth_, IRouterRegistry registry_, V3Venue[] memory venues)
        RouterFunds(weth_, registry_, 0)
        UniswapV3Hops(venues)
    {}

    /// @notice An exact-output swap of the SWAP_V3 hop `hop` (its opcode first) from `tokenIn`, exactly
    /// `amountOut` to `to`, with `data` handed to the pool's callback as an exact-output route would.
    /// @param hop The packed SWAP_V3 action.
    /// @param tokenIn The sold token.
    /// @param amountOut The exact output.
    /// @param to Who receives it.
    /// @param data The callback data (anything but this module's 64-byte exact-input encoding).
    function exactOutputSwap(bytes calldata hop, address tokenIn, uint256 amountOut, address to, bytes calldata data)
        external
    {
        (address pool, bool zeroForOne) = _v3HopPool(hop, 0, tokenIn);
        _v3ExactOutputSwap(pool, zeroForOne, amountOut, to, data);
    }

    /// @dev No propAMM allowlist here: an empty pair-filter copy.
    function _syncPairFilter() internal pure override returns (uint128) {
        return 0;
    }

    /// @dev No venue here pays native ETH out.
    function _nativePayer() internal pure override returns (address) {
        return address(0);
    }
}
