// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title DevPlainToken
/// @notice A devnet test token WITHOUT EIP-2612 (no `permit`, no domain): what a gasless quote for a
/// token that cannot be approved by signature looks like. Devnet only: the owner mints freely.
contract DevPlainToken is ERC20, Ownable {
    uint8 private immutable _decimals;

    /// @param name_ Token name.
    /// @param symbol_ Token symbol.
    /// @param decimals_ Decimals.
    /// @param owner_ The account allowed to mint.
    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_) ERC20(name_, symbol_) Ownable(owner_) {
        _decimals = decimals_;
    }

    /// @notice Mints `amount` to `to`. Owner only.
    /// @param to The receiver.
    /// @param amount The amount, in base units.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @inheritdoc ERC20
    function decimals() public view override returns (uint8) {
        return _decimals;
    }
}
