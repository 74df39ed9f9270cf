// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {TakerSwapSettlement} from "./TakerSwapSettlement.sol";
import {PropAmmAllowlist} from "../registry/PropAmmAllowlist.sol";
import {PropAmmHops} from "./PropAmmHops.sol";
import {UniswapV3Hops} from "./venues/UniswapV3Hops.sol";
import {UniswapV4Hops} from "./venues/UniswapV4Hops.sol";

/// @title TakerSwapRouter
/// @notice Feature-2 router, first version: exact-input swaps on the V2 venue only (no V3 venues),
/// kept so that migrations away from it are tested.
contract TakerSwapRouter is TakerSwapSettlement {
    /// @param permit2_ Permit2.
    /// @param allowanceHolder_ The allowance holder takers approve for allowance settlement.
    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose feature-2 status gates this router.
    /// @param venue The V2 factory whose pairs routes may use, and its pool fee.
    constructor(
        ISignatureTransfer permit2_,
        IAllowanceHolder allowanceHolder_,
        IWETH9 weth_,
        IRouterRegistry registry_,
        V2Venue memory venue
    ) TakerSwapSettlement(permit2_, allowanceHolder_, weth_, registry_, venue) UniswapV3Hops(new V3Venue[](0)) PropAmmHops(PropAmmAllowlist(address(0))) UniswapV4Hops(address(0)) {}
}
