// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title IUniswapV4Venue
/// @notice A router's Uniswap V4 venue: the PoolManager its SWAP_V4 hops swap in, and the callback
/// the PoolManager runs them in.
/// @dev A SWAP_V4 action (`0x08`: tokenOut 20 bytes, fee uint24 3 bytes, tickSpacing int24 3 bytes,
/// hooks 20 bytes) names the pool by its key: (sorted running token and tokenOut, fee, tickSpacing,
/// hooks). A currency of address zero is native ETH. Consecutive SWAP_V4 actions run in one `unlock`,
/// settling the run's input and taking its output once each; in exact input, a SPLIT leg's SWAP_V4 hop
/// unlocks alone.
interface IUniswapV4Venue {
    /// @notice `caller` called `unlockCallback` but is not this router's PoolManager unlocked by this
    /// router's own SWAP_V4 hop (a stranger, or the PoolManager outside our unlock).
    error SwapV4CallbackRefused(address caller);
    /// @notice The pool took `paid` of the hop's `wanted` input (it ran out of liquidity first, or a
    /// hook changed the amount): a V4 hop fills completely or not at all.
    error SwapV4PartialFill(uint256 wanted, uint256 paid);
    /// @notice The hop into `tokenOut` paid nothing for `amountIn` (too small to move the price, or a
    /// hook kept it all): refused rather than passing a zero amount on.
    error SwapV4ZeroOutput(address tokenOut, uint256 amountIn);

    /// @notice The PoolManager SWAP_V4 hops swap in; address zero when this router has no V4 venue
    /// (it then refuses SWAP_V4 as an unknown action). Clients detect the V4 action with it.
    /// @return The PoolManager.
    function poolManager() external view returns (address);

    /// @notice What this router's V4 venue does, for clients choosing routes: 0 without a PoolManager;
    /// 2 when exact-output routes run a path's or SPLIT leg's leading SWAP_V4 hops backwards. Routers
    /// built before revision 2 lack this view: a revert beside a PoolManager is revision 1 (SWAP_V4 in
    /// exact-input routes only). A later revision adds to what the earlier ones do.
    /// @return The revision.
    function v4Revision() external view returns (uint256);

    /// @notice Called by the PoolManager during this router's own `unlock`: runs the SWAP_V4 hops it
    /// was handed, pays the run's input (ERC20: `sync`, transfer, `settle`; native ETH: `settle` with
    /// value) and takes its output, once each. Refused for any other caller or outside our unlock. On a
    /// router without a PoolManager it reaches no code and does nothing.
    /// @param data The router's own encoding: input token, input amount, output receiver, the hops.
    /// @return The run's output amount, ABI-encoded.
    function unlockCallback(bytes calldata data) external returns (bytes memory);
}
