import { parseAbi } from "viem";

/**
 * The parts of Uniswap V4's singleton PoolManager that quoting follows: its pool events (every
 * pool's, keyed by pool id) and the dynamic-fee update. Written from v4-core's IPoolManager, so the
 * SDK needs no artifact.
 */
export const uniswapV4PoolManagerAbi = parseAbi([
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "event Initialize(bytes32 indexed id, address indexed currency0, address indexed currency1, uint24 fee, int24 tickSpacing, address hooks, uint160 sqrtPriceX96, int24 tick)",
  "event ModifyLiquidity(bytes32 indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt)",
  "event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)",
  "event ProtocolFeeUpdated(bytes32 indexed id, uint24 protocolFee)",
  "function initialize(PoolKey key, uint160 sqrtPriceX96) returns (int24 tick)",
  "function updateDynamicLPFee(PoolKey key, uint24 newDynamicLPFee)",
]);

/** Uniswap V4's StateView (v4-periphery): a pool's state read by pool id. */
export const uniswapV4StateViewAbi = parseAbi([
  "function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)",
  "function getLiquidity(bytes32 poolId) view returns (uint128 liquidity)",
  "function getTickBitmap(bytes32 poolId, int16 tick) view returns (uint256 tickBitmap)",
  "function getTickLiquidity(bytes32 poolId, int24 tick) view returns (uint128 liquidityGross, int128 liquidityNet)",
]);

/**
 * Uniswap V4's V4Quoter (v4-periphery): a single-pool swap simulated through the PoolManager (hooks
 * included) and reverted, returning the amount and its gas. Called with `eth_call` only.
 */
export const uniswapV4QuoterAbi = parseAbi([
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "struct QuoteExactSingleParams { PoolKey poolKey; bool zeroForOne; uint128 exactAmount; bytes hookData; }",
  "function quoteExactInputSingle(QuoteExactSingleParams params) returns (uint256 amountOut, uint256 gasEstimate)",
  "function quoteExactOutputSingle(QuoteExactSingleParams params) returns (uint256 amountIn, uint256 gasEstimate)",
  "error NotEnoughLiquidity(bytes32 poolId)",
  "error UnexpectedRevertBytes(bytes revertData)",
]);
