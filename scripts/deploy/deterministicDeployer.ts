import { concat, getContractAddress, type Address, type Hex, type PublicClient } from "viem";

/**
 * The deterministic deployment proxy (Arachnid's, the one Foundry and Safe use): calldata is a 32-byte
 * salt followed by creation code; it CREATE2s the code and returns the new address. It sits at the same
 * address on every chain because it is deployed by a keyless transaction signed for no chain id.
 */
export const DETERMINISTIC_DEPLOYER: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";

/** The proxy's runtime code: what a chain that has it holds at DETERMINISTIC_DEPLOYER. */
export const DETERMINISTIC_DEPLOYER_RUNTIME: Hex =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

/**
 * Its keyless deployment: a pre-EIP-155 transaction (nonce 0, gas price 100 gwei, gas 100,000) with
 * r = s = 0x22…22, from the address below, whose first contract is DETERMINISTIC_DEPLOYER.
 */
export const DETERMINISTIC_DEPLOYER_TRANSACTION: Hex =
  "0xf8a58085174876e800830186a08080b853604580600e600039806000f350fe7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf31ba02222222222222222222222222222222222222222222222222222222222222222a02222222222222222222222222222222222222222222222222222222222222222";
export const DETERMINISTIC_DEPLOYER_SIGNER: Address = "0x3fAB184622Dc19b6109349B94811493BF2a45362";
/** The keyless transaction's fixed gas limit and gas price. */
export const DETERMINISTIC_DEPLOYER_GAS = 100_000n;
export const DETERMINISTIC_DEPLOYER_GAS_PRICE = 100_000_000_000n;
/** What its signer must hold to pay for the transaction: 100,000 gas at 100 gwei. */
export const DETERMINISTIC_DEPLOYER_FUNDING = DETERMINISTIC_DEPLOYER_GAS * DETERMINISTIC_DEPLOYER_GAS_PRICE;

/** The address the proxy gives `initCode` deployed with `salt`. */
export function create2Address(initCode: Hex, salt: Hex): Address {
  return getContractAddress({ opcode: "CREATE2", from: DETERMINISTIC_DEPLOYER, salt, bytecode: initCode });
}

/** The calldata that makes the proxy deploy `initCode` with `salt`. */
export function create2Calldata(initCode: Hex, salt: Hex): Hex {
  return concat([salt, initCode]);
}

/** Where the proxy stands on a chain: absent (the deploy must place it), present, or something else at its address. */
export async function deterministicDeployerState(client: Pick<PublicClient, "getCode">): Promise<"absent" | "present" | "foreign"> {
  const code = await client.getCode({ address: DETERMINISTIC_DEPLOYER });
  if (code === undefined || code === "0x") return "absent";
  return code.toLowerCase() === DETERMINISTIC_DEPLOYER_RUNTIME.toLowerCase() ? "present" : "foreign";
}
