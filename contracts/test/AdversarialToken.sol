// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title AdversarialToken
/// @notice Test-only ERC20 with the behaviours real tokens have and routers trip over: a fee on every
/// transfer, no return value (USDT-style), a revert on zero-value transfers, and rebasing (every
/// balance scaled by a settable factor), and a `transfer` (not `transferFrom`) that reverts with a
/// return-data bomb or burns all its gas. Never deployed by the devnet.
contract AdversarialToken {
    /// @notice Transfer fee in bps, taken from the amount the receiver gets (burned).
    uint256 public feeBps;
    /// @notice Whether transfer and transferFrom return nothing.
    bool public noReturn;
    /// @notice Whether zero-value transfers revert.
    bool public revertOnZero;
    /// @notice Balances are shares times this factor over 1e18.
    uint256 public rebaseFactor = 1e18;
    /// @notice When non-zero, `transfer` reverts with this many bytes of revert data.
    uint256 public transferRevertBytes;
    /// @notice Whether `transfer` burns all the gas it is given.
    bool public transferBurnsGas;

    mapping(address account => uint256 shares) private _shares;
    mapping(address owner => mapping(address spender => uint256 amount)) public allowance;
    uint256 private _totalShares;

    /// @notice ERC20 Transfer.
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice ERC20 Approval.
    event Approval(address indexed owner, address indexed spender, uint256 value);

    /// @notice A zero-value transfer was refused.
    error AdversarialTokenZeroTransfer();
    /// @notice Balance or allowance too low.
    error AdversarialTokenInsufficient();

    /// @notice Sets the behaviours.
    /// @param feeBps_ Transfer fee.
    /// @param noReturn_ Return nothing.
    /// @param revertOnZero_ Revert on zero transfers.
    function configure(uint256 feeBps_, bool noReturn_, bool revertOnZero_) external {
        feeBps = feeBps_;
        noReturn = noReturn_;
        revertOnZero = revertOnZero_;
    }

    /// @notice Makes `transfer` fail: revert with `revertBytes` bytes (when non-zero), or burn all gas.
    /// @param revertBytes Revert data length, 0 for none.
    /// @param burnGas Burn all gas instead.
    function setTransferFailure(uint256 revertBytes, bool burnGas) external {
        transferRevertBytes = revertBytes;
        transferBurnsGas = burnGas;
    }

    /// @notice Rebases every balance.
    /// @param factor New factor (1e18 = none).
    function rebase(uint256 factor) external {
        rebaseFactor = factor;
    }

    /// @notice Mints `amount` to `to`.
    /// @param to Receiver.
    /// @param amount Amount.
    function mint(address to, uint256 amount) external {
        uint256 shares = amount * 1e18 / rebaseFactor;
        _shares[to] += shares;
        _totalShares += shares;
        emit Transfer(address(0), to, amount);
    }

    /// @notice ERC20 decimals.
    /// @return Always 18.
    function decimals() external pure returns (uint8) {
        return 18;
    }

    /// @notice ERC20 totalSupply.
    /// @return The supply.
    function totalSupply() external view returns (uint256) {
        return _totalShares * rebaseFactor / 1e18;
    }

    /// @notice ERC20 balanceOf.
    /// @param account The account.
    /// @return The balance.
    function balanceOf(address account) public view returns (uint256) {
        return _shares[account] * rebaseFactor / 1e18;
    }

    /// @notice ERC20 approve.
    /// @param spender Spender.
    /// @param amount Amount.
    /// @return Always true.
    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice ERC20 transfer, with the configured quirks.
    /// @param to Receiver.
    /// @param amount Amount.
    /// @return Whether it succeeded (nothing when `noReturn`).
    function transfer(address to, uint256 amount) external returns (bool) {
        if (transferBurnsGas) {
            while (true) {} // solhint-disable-line no-empty-blocks
        }
        uint256 revertBytes = transferRevertBytes;
        if (revertBytes != 0) {
            assembly ("memory-safe") {
                revert(0, revertBytes)
            }
        }
        _move(msg.sender, to, amount);
        return _answer();
    }

    /// @notice ERC20 transferFrom, with the configured quirks.
    /// @param from Owner.
    /// @param to Receiver.
    /// @param amount Amount.
    /// @return Whether it succeeded (nothing when `noReturn`).
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed < amount) revert AdversarialTokenInsufficient();
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return _answer();
    }

    function _move(address from, address to, uint256 amount) private {
        if (amount == 0 && revertOnZero) revert AdversarialTokenZeroTransfer();
        if (balanceOf(from) < amount) revert AdversarialTokenInsufficient();
        uint256 fee = amount * feeBps / 10_000;
        uint256 shares = amount * 1e18 / rebaseFactor;
        uint256 received = (amount - fee) * 1e18 / rebaseFactor;
        _shares[from] -= shares;
        _shares[to] += received;
        _totalShares -= shares - received;
        emit Transfer(from, to, amount - fee);
    }

    function _answer() private view returns (bool) {
        if (noReturn) {
            assembly ("memory-safe") {
                return(0, 0)
            }
        }
        return true;
    }
}
