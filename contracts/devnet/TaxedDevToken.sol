// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {DevToken} from "./DevToken.sol";

/// @title TaxedDevToken
/// @notice A devnet DevToken that taxes its own transfers, as fee-on-transfer tokens do: a share of
/// every transfer is burned. The share depends on the direction relative to `pool`: a buy (the pool
/// pays out), a sell (someone pays the pool), or any other transfer. Mints and burns are not taxed.
/// Devnet only, like DevToken.
contract TaxedDevToken is DevToken {
    /// @notice The largest tax: everything sent.
    uint256 public constant MAX_TAX_BPS = 10_000;

    /// @notice Tax on transfers from `pool`, in bps.
    uint256 public buyTaxBps;
    /// @notice Tax on transfers to `pool`, in bps.
    uint256 public sellTaxBps;
    /// @notice Tax on every other transfer, in bps.
    uint256 public transferTaxBps;
    /// @notice The pool whose transfers count as buys and sells; none until the owner sets it.
    address public pool;

    /// @notice The taxes changed.
    event TaxedDevTokenTaxesSet(uint256 buyTaxBps, uint256 sellTaxBps, uint256 transferTaxBps);
    /// @notice The pool changed.
    event TaxedDevTokenPoolSet(address pool);

    /// @notice A tax above everything sent.
    error TaxedDevTokenTaxTooHigh(uint256 taxBps, uint256 maxTaxBps);

    /// @param name_ Token name.
    /// @param symbol_ Token symbol.
    /// @param decimals_ Decimals.
    /// @param owner_ The account allowed to mint and to set the taxes and the pool.
    /// @param buyTaxBps_ Tax on buys, in bps.
    /// @param sellTaxBps_ Tax on sells, in bps.
    /// @param transferTaxBps_ Tax on other transfers, in bps.
    constructor(
        string memory name_,
        string memory symbol_,
        uint8 decimals_,
        address owner_,
        uint256 buyTaxBps_,
        uint256 sellTaxBps_,
        uint256 transferTaxBps_
    ) DevToken(name_, symbol_, decimals_, owner_) {
        _setTaxes(buyTaxBps_, sellTaxBps_, transferTaxBps_);
    }

    /// @notice Sets the three taxes. Owner only.
    /// @param buyTaxBps_ Tax on buys, in bps.
    /// @param sellTaxBps_ Tax on sells, in bps.
    /// @param transferTaxBps_ Tax on other transfers, in bps.
    function setTaxes(uint256 buyTaxBps_, uint256 sellTaxBps_, uint256 transferTaxBps_) external onlyOwner {
        _setTaxes(buyTaxBps_, sellTaxBps_, transferTaxBps_);
    }

    /// @notice Sets the pool whose transfers are buys and sells. Owner only.
    /// @param pool_ The pool (a Uniswap V2 pair of this token).
    function setPool(address pool_) external onlyOwner {
        pool = pool_;
        emit TaxedDevTokenPoolSet(pool_);
    }

    function _setTaxes(uint256 buyTaxBps_, uint256 sellTaxBps_, uint256 transferTaxBps_) private {
        if (buyTaxBps_ > MAX_TAX_BPS) revert TaxedDevTokenTaxTooHigh(buyTaxBps_, MAX_TAX_BPS);
        if (sellTaxBps_ > MAX_TAX_BPS) revert TaxedDevTokenTaxTooHigh(sellTaxBps_, MAX_TAX_BPS);
        if (transferTaxBps_ > MAX_TAX_BPS) revert TaxedDevTokenTaxTooHigh(transferTaxBps_, MAX_TAX_BPS);
        buyTaxBps = buyTaxBps_;
        sellTaxBps = sellTaxBps_;
        transferTaxBps = transferTaxBps_;
        emit TaxedDevTokenTaxesSet(buyTaxBps_, sellTaxBps_, transferTaxBps_);
    }

    /// @dev Burns the tax from the sender, then moves the rest.
    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && to != address(0)) {
            uint256 taxBps = from == pool ? buyTaxBps : to == pool ? sellTaxBps : transferTaxBps;
            uint256 tax = (value * taxBps) / MAX_TAX_BPS;
            if (tax != 0) {
                super._update(from, address(0), tax);
                value -= tax;
            }
        }
        super._update(from, to, value);
    }
}
