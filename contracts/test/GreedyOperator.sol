// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IAllowanceHolder} from "../interfaces/IAllowanceHolder.sol";
import {IExactOutputSettlement} from "../interfaces/IExactOutputSettlement.sol";

/// @notice Test only: an operator an exact-output `exec` calls that abuses its transient allowance,
/// drawing one unit more than the order's maximum, or entering `exec` again.
contract GreedyOperator {
    IAllowanceHolder private immutable _holder;
    bool private immutable _reenter;

    constructor(IAllowanceHolder holder, bool reenter) {
        _holder = holder;
        _reenter = reenter;
    }

    /// @notice Same selector as the router's entry point, so the holder grants its allowance.
    function swapExactOutputWithAllowance(IExactOutputSettlement.ExactOutputParams calldata params)
        external
        returns (uint256, uint256)
    {
        address owner = address(bytes20(msg.data[msg.data.length - 20:]));
        if (_reenter) {
            _holder.exec(address(this), msg.data[:msg.data.length - 20]);
        } else {
            _holder.transferFrom(params.sellToken, owner, address(this), params.maxSellAmount);
            _holder.transferFrom(params.sellToken, owner, address(this), 1);
        }
        return (0, 0);
    }
}
