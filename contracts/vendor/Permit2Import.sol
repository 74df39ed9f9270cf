// SPDX-License-Identifier: MIT
// solhint-disable-next-line compiler-version
pragma solidity 0.8.17;

// Pulls Uniswap's own Permit2 into the build (compiled with 0.8.17 + viaIR, like upstream).
// solhint-disable-next-line no-unused-import
import {Permit2} from "@uniswap/v4-periphery/lib/permit2/src/Permit2.sol";
