// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {TakerExactOutputSettlement} from "./TakerExactOutputSettlement.sol";
import {PropAmmAllowlist} from "../registry/PropAmmAllowlist.sol";
import {PropAmmHops} from "./PropAmmHops.sol";
import {UniswapV3Hops} from "./venues/UniswapV3Hops.sol";
import {UniswapV4Hops} from "./venues/UniswapV4Hops.sol";

/// @title TakerSwapRouterV3
/// @notice Feature-2 router, third version: TakerSwapRouterV2's exact-input and exact-output swaps,
/// routed over the V2 venue and up to four Uniswap-V3-style venues (SWAP_V3), Uniswap V4 (SWAP_V4) and the propAMMs, and SPLIT legs mixing them.
contract TakerSwapRouterV3 is TakerExactOutputSettlement {
    /// @param permit2_ Permit2.
    /// @param allowanceHolder_ The allowance holder takers approve for allowance settlement.
    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose feature-2 status gates this router.
    /// @param venue The V2 factory whose pairs routes may use, and its pool fee.
    /// @param v3Venues The V3 venues (factory, pool init-code hash), indexed as SWAP_V3 names them.
    /// @param propAmms The allowlist of the propAMMs SWAP_PROPAMM may call.
    /// @param poolManager_ Uniswap V4's PoolManager, which SWAP_V4 swaps in (zero: no V4 venue).
    constructor(
        ISignatureTransfer permit2_,
        IAllowanceHolder allowanceHolder_,
        IWETH9 weth_,
        IRouterRegistry registry_,
        V2Venue memory venue,
        V3Venue[] memory v3Venues,
        PropAmmAllowlist propAmms,
        address poolManager_
    ) TakerExactOutputSettlement(permit2_, allowanceHolder_, weth_, registry_, venue) UniswapV3Hops(v3Venues) PropAmmHops(propAmms) UniswapV4Hops(poolManager_) {}
}
