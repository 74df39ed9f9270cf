// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {GaslessBatchSettlement} from "./GaslessBatchSettlement.sol";
import {PropAmmAllowlist} from "../registry/PropAmmAllowlist.sol";
import {PropAmmHops} from "./PropAmmHops.sol";
import {UniswapV3Hops} from "./venues/UniswapV3Hops.sol";
import {UniswapV4Hops} from "./venues/UniswapV4Hops.sol";

/// @title GaslessBatchSwapRouter
/// @notice Feature-3 router, second version: GaslessBatchSettlement's entry points on the V2 venue
/// only (no V3 venues), kept so that migrations away from it are tested.
contract GaslessBatchSwapRouter is GaslessBatchSettlement {
    /// @param permit2_ Permit2.
    /// @param weth_ Wrapped ether.
    /// @param registry_ The registry whose feature-3 status gates this router.
    /// @param venue The V2 factory whose pairs routes may use, and its pool fee.
    constructor(ISignatureTransfer permit2_, IWETH9 weth_, IRouterRegistry registry_, V2Venue memory venue)
        GaslessBatchSettlement(permit2_, weth_, registry_, venue)
        UniswapV3Hops(new V3Venue[](0)) PropAmmHops(PropAmmAllowlist(address(0))) UniswapV4Hops(address(0))
    {}
}
