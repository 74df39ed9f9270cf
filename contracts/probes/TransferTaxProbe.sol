// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ITransferTaxProbe} from "../interfaces/ITransferTaxProbe.sol";
import {IUniswapV2Pair} from "@uniswap/v2-core/contracts/interfaces/IUniswapV2Pair.sol";

/// @title TransferTaxProbe
/// @notice See ITransferTaxProbe. The API runs it with `eth_call` and a code override when a token
/// is admitted; it is never deployed on a live chain.
contract TransferTaxProbe is ITransferTaxProbe {
    using SafeERC20 for IERC20;

    uint256 private constant BPS = 10_000;

    /// @dev An address no token treats specially (no key is known for it): the plain transfer's receiver.
    address private constant SINK = address(uint160(uint256(keccak256("TransferTaxProbe.sink"))));

    /// @inheritdoc ITransferTaxProbe
    function measure(address pair, address token, uint256 amount) external {
        bool isToken0 = IUniswapV2Pair(pair).token0() == token;
        (uint256 amount0Out, uint256 amount1Out) = isToken0 ? (amount, uint256(0)) : (uint256(0), amount);
        IUniswapV2Pair(pair).swap(amount0Out, amount1Out, address(this), abi.encode(pair, token, amount));
    }

    /// @inheritdoc ITransferTaxProbe
    function uniswapV2Call(address, uint256, uint256, bytes calldata data) external {
        (address pair, address token, uint256 amount) = abi.decode(data, (address, address, uint256));
        if (msg.sender != pair) revert TransferTaxProbeUnexpectedCaller(msg.sender, pair);
        IERC20 asset = IERC20(token);
        uint256 received = asset.balanceOf(address(this));

        uint256 half = received / 2;
        uint256 sinkBefore = asset.balanceOf(SINK);
        asset.safeTransfer(SINK, half);
        uint256 transferTax = _taxBps(half, asset.balanceOf(SINK) - sinkBefore);

        uint256 rest = received - half;
        uint256 pairBefore = asset.balanceOf(pair);
        asset.safeTransfer(pair, rest);
        uint256 sellTax = _taxBps(rest, asset.balanceOf(pair) - pairBefore);

        revert TransferTaxProbeResult(_taxBps(amount, received), sellTax, transferTax);
    }

    /// @dev The share of `sent` that did not arrive, in bps rounded up; nothing sent counts as all taxed.
    function _taxBps(uint256 sent, uint256 arrived) private pure returns (uint256) {
        if (sent == 0) return BPS;
        if (arrived >= sent) return 0;
        return ((sent - arrived) * BPS + sent - 1) / sent;
    }
}
