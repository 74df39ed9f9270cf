// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPropAmm} from "../interfaces/IPropAmm.sol";

/// @title DevPropAmm
/// @notice The devnet's reference propAMM: it sells its own inventory of two tokens at a price its
/// operator (the owner) sets, less a spread, as an oracle-driven market maker does. Exact input only.
/// @dev `price` is token1 base units per token0 base unit, scaled by 1e18, so that tokens of any
/// decimals keep precision. The spread is taken from the output in both directions. Devnet only: the
/// price is whatever the owner says.
contract DevPropAmm is IPropAmm, Ownable {
    using SafeERC20 for IERC20;

    /// @notice Scale of `price`.
    uint256 public constant PRICE_SCALE = 1e18;
    /// @notice Basis points in one.
    uint256 public constant BPS = 10_000;
    /// @notice Upper bound on the spread: 10 %.
    uint256 public constant MAX_SPREAD_BPS = 1_000;

    /// @notice The configured token0 (what `zeroForOne` sells).
    IERC20 public immutable token0;
    /// @notice The configured token1 (what `zeroForOne` buys).
    IERC20 public immutable token1;
    /// @notice token1 base units per token0 base unit, times PRICE_SCALE.
    uint256 public price;
    /// @notice The spread taken from every output, in bps.
    uint16 public spreadBps;

    /// @notice The operator set a new price and spread.
    event PriceSet(uint256 previousPrice, uint256 price, uint16 previousSpreadBps, uint16 spreadBps);
    /// @notice `sender` sold `amountIn` and `to` received `amountOut`.
    event Swap(address indexed sender, address indexed to, bool zeroForOne, uint256 amountIn, uint256 amountOut);
    /// @notice The operator took `amount` of `token` out of the inventory.
    event InventoryWithdrawn(address indexed token, address indexed to, uint256 amount);

    /// @notice The tokens are the same, or one is the zero address.
    error DevPropAmmInvalidTokens(address token0, address token1);
    /// @notice A zero price, or a spread above MAX_SPREAD_BPS.
    error DevPropAmmInvalidQuote(uint256 price, uint256 spreadBps);
    /// @notice The swap ran after its deadline.
    error DevPropAmmDeadlineExpired(uint256 deadline, uint256 timestamp);
    /// @notice The output is below the caller's minimum.
    error DevPropAmmInsufficientOutput(uint256 amountOut, uint256 amountOutMin);
    /// @notice The inventory holds less of the bought token than the output.
    error DevPropAmmInsufficientInventory(uint256 amountOut, uint256 inventory);
    /// @notice Ether was sent: this propAMM trades ERC20s only.
    error DevPropAmmNativeValue(uint256 value);
    /// @notice The token is neither of the configured two.
    error DevPropAmmUnknownToken(address token);

    /// @param token0_ The configured token0.
    /// @param token1_ The configured token1.
    /// @param operator The owner, who sets prices and may withdraw inventory.
    /// @param initialPrice The first price (see `price`).
    /// @param initialSpreadBps The first spread, in bps.
    constructor(IERC20 token0_, IERC20 token1_, address operator, uint256 initialPrice, uint16 initialSpreadBps)
        Ownable(operator)
    {
        if (address(token0_) == address(0) || address(token1_) == address(0) || token0_ == token1_) {
            revert DevPropAmmInvalidTokens(address(token0_), address(token1_));
        }
        token0 = token0_;
        token1 = token1_;
        _setPrice(initialPrice, initialSpreadBps);
    }

    /// @notice Sets the price and the spread. Owner only.
    /// @param newPrice token1 base units per token0 base unit, times PRICE_SCALE; not zero.
    /// @param newSpreadBps The spread, at most MAX_SPREAD_BPS.
    function setPrice(uint256 newPrice, uint16 newSpreadBps) external onlyOwner {
        _setPrice(newPrice, newSpreadBps);
    }

    /// @notice Takes inventory out. Owner only.
    /// @param token token0 or token1.
    /// @param to The receiver.
    /// @param amount The amount.
    function withdraw(IERC20 token, address to, uint256 amount) external onlyOwner {
        if (token != token0 && token != token1) revert DevPropAmmUnknownToken(address(token));
        emit InventoryWithdrawn(address(token), to, amount);
        token.safeTransfer(to, amount);
    }

    /// @inheritdoc IPropAmm
    /// @dev Zero when the inventory could not pay the output, so a quoter skips this venue.
    function getAmountOut(bool zeroForOne, uint256 amountIn) external view returns (uint256 amountOut) {
        amountOut = _quote(zeroForOne, amountIn);
        if (amountOut > (zeroForOne ? token1 : token0).balanceOf(address(this))) amountOut = 0;
    }

    /// @inheritdoc IPropAmm
    function swapExactIn(bool zeroForOne, uint256 amountIn, uint256 amountOutMin, address to, uint256 deadline)
        external
        payable
        returns (uint256 amountOut)
    {
        if (msg.value != 0) revert DevPropAmmNativeValue(msg.value);
        if (block.timestamp > deadline) revert DevPropAmmDeadlineExpired(deadline, block.timestamp);
        amountOut = _quote(zeroForOne, amountIn);
        if (amountOut < amountOutMin || amountOut == 0) revert DevPropAmmInsufficientOutput(amountOut, amountOutMin);
        (IERC20 tokenIn, IERC20 tokenOut) = zeroForOne ? (token0, token1) : (token1, token0);
        uint256 inventory = tokenOut.balanceOf(address(this));
        if (amountOut > inventory) revert DevPropAmmInsufficientInventory(amountOut, inventory);
        emit Swap(msg.sender, to, zeroForOne, amountIn, amountOut);
        // The price does not depend on balances, so neither transfer's order can move it.
        tokenIn.safeTransferFrom(msg.sender, address(this), amountIn);
        tokenOut.safeTransfer(to, amountOut);
    }

    function _setPrice(uint256 newPrice, uint16 newSpreadBps) private {
        if (newPrice == 0 || newSpreadBps > MAX_SPREAD_BPS) revert DevPropAmmInvalidQuote(newPrice, newSpreadBps);
        emit PriceSet(price, newPrice, spreadBps, newSpreadBps);
        price = newPrice;
        spreadBps = newSpreadBps;
    }

    /// @dev The output at the price, less the spread, rounded down.
    function _quote(bool zeroForOne, uint256 amountIn) private view returns (uint256) {
        uint256 gross = zeroForOne ? (amountIn * price) / PRICE_SCALE : (amountIn * PRICE_SCALE) / price;
        return (gross * (BPS - spreadBps)) / BPS;
    }
}
