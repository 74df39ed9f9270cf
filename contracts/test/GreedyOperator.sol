// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {IExactOutputSettlement} from "../interfaces/IExactOutputSettlement.sol";

/// @notice Test only: an operator an exact-output `exec` calls that abuses its transient allowance:
/// drawing one unit more than the order's maximum (mode 0), entering `exec` again (1), drawing from
/// another owner than the taker (2), or another token than the order's (3).
contract GreedyOperator {
    IAllowanceHolder private immutable _holder;
    uint8 private immutable _mode;

    constructor(IAllowanceHolder holder, uint8 mode) {
        _holder = holder;
        _mode = mode;
    }

    /// @notice Same selector as the router's entry point, so the holder grants its allowance.
    function swapExactOutputWithAllowance(IExactOutputSettlement.ExactOutputParams calldata params)
        external
        returns (uint256, uint256)
    {
        address owner = address(bytes20(msg.data[msg.data.length - 20:]));
        if (_mode == 1) {
            _holder.exec(address(this), msg.data[:msg.data.length - 20]);
        } else if (_mode == 2) {
            _holder.transferFrom(params.sellToken, address(this), address(this), 1);
        } else if (_mode == 3) {
            _holder.transferFrom(params.buyToken, owner, address(this), 1);
        } else {
            _holder.transferFrom(params.sellToken, owner, address(this), params.maxSellAmount);
            _holder.transferFrom(params.sellToken, owner, address(this), 1);
        }
        return (0, 0);
    }
}
