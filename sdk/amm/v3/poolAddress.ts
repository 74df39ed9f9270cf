import { encodeAbiParameters, getAddress, getContractAddress, keccak256, type Address, type Hex } from "viem";

/** The two tokens in pool order (token0 < token1 by address), checksummed. */
export function sortTokens(a: Address, b: Address): [Address, Address] {
  return a.toLowerCase() < b.toLowerCase() ? [getAddress(a), getAddress(b)] : [getAddress(b), getAddress(a)];
}

/**
 * A V3 pool's address as its factory creates it: CREATE2 from the factory with salt
 * keccak256(abi.encode(token0, token1, fee)) over the venue's pool init-code hash. This is the address
 * a router computes for a SWAP_V3 hop (UniswapV3Hops), and the one Uniswap's own SDK computes.
 */
export function v3PoolAddress(factory: Address, poolInitCodeHash: Hex, tokenA: Address, tokenB: Address, fee: number): Address {
  const [token0, token1] = sortTokens(tokenA, tokenB);
  const salt = keccak256(encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint24" }], [token0, token1, fee]));
  return getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecodeHash: poolInitCodeHash });
}
