// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISignatureTransfer} from "@uniswap/v4-periphery/lib/permit2/src/interfaces/ISignatureTransfer.sol";
import {IRouterRegistry} from "../interfaces/IRouterRegistry.sol";
import {IWETH9} from "../interfaces/IWETH9.sol";
import {GaslessExactOutput} from "../routers/GaslessExactOutput.sol";
import {GaslessSwapRouter} from "../routers/GaslessSwapRouter.sol";

/// @notice A feature-3 router with `swapGasless` and GaslessExactOutput, for the exact-output tests
/// until GaslessBatchSwapRouter inherits it (its batch loop does not yet compile under coverage
/// instrumentation with the extra code: "stack too deep").
contract GaslessExactOutputRouter is GaslessSwapRouter, GaslessExactOutput {
    constructor(ISignatureTransfer permit2_, IWETH9 weth_, IRouterRegistry registry_, V2Venue memory venue)
        GaslessSwapRouter(permit2_, weth_, registry_, venue)
    {}
}
