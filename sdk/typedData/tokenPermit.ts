import { getAddress, hashDomain, parseAbi, type Address, type Hex, type PublicClient } from "viem";

/** An EIP-2612 token's EIP-712 domain, as read from the token itself. */
export type TokenPermitDomain = { name: string; version: string; chainId: number; verifyingContract: Address };

/** EIP-2612's Permit type. */
export const tokenPermitTypes = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

const tokenPermitReadAbi = parseAbi([
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function nonces(address owner) view returns (uint256)",
]);

/** Gas for each read of someone else's token code: a domain read is a few storage loads. */
const READ_GAS = 100_000n;

/**
 * The token's EIP-2612 domain, or undefined when the API cannot be sure the token has permits: ERC-5267
 * `eip712Domain()` first (fields name, version, chainId, verifyingContract and nothing else), else
 * `DOMAIN_SEPARATOR()` checked against `name()` and `version()` (or version "1"). In both cases the
 * token must also answer `nonces(owner)`; a domain that does not hash to the token's own separator
 * is refused, since a permit signed for it would fail on chain.
 */
export async function readTokenPermitDomain(client: Pick<PublicClient, "readContract">, token: Address, chainId: number, owner: Address): Promise<{ domain: TokenPermitDomain; nonce: bigint } | undefined> {
  const read = <T>(functionName: "eip712Domain" | "DOMAIN_SEPARATOR" | "name" | "version", args?: readonly unknown[]) =>
    client.readContract({ address: token, abi: tokenPermitReadAbi, functionName, gas: READ_GAS, ...(args === undefined ? {} : { args }) } as never).then(
      (value) => value as T,
      () => undefined,
    );
  let nonce: bigint;
  try {
    nonce = (await client.readContract({ address: token, abi: tokenPermitReadAbi, functionName: "nonces", args: [owner], gas: READ_GAS } as never)) as bigint;
  } catch {
    return undefined;
  }
  const verifyingContract = getAddress(token);
  const ercDomain = await read<readonly [Hex, string, string, bigint, Address, Hex, readonly bigint[]]>("eip712Domain");
  if (ercDomain !== undefined) {
    const [fields, name, version, domainChainId, contract] = ercDomain;
    // 0x0f: name, version, chainId, verifyingContract; a salt or extensions are not EIP-2612's domain.
    if (fields !== "0x0f" || Number(domainChainId) !== chainId || getAddress(contract) !== verifyingContract) return undefined;
    return { domain: { name, version, chainId, verifyingContract }, nonce };
  }
  const [separator, name, version] = await Promise.all([read<Hex>("DOMAIN_SEPARATOR"), read<string>("name"), read<string>("version")]);
  if (separator === undefined || name === undefined) return undefined;
  const domain = { name, version: version ?? "1", chainId, verifyingContract };
  const types = { EIP712Domain: [{ name: "name", type: "string" }, { name: "version", type: "string" }, { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "address" }] } as const;
  return hashDomain({ domain: { ...domain, chainId: BigInt(chainId) }, types }) === separator ? { domain, nonce } : undefined;
}

export type TokenPermitParameters = { domain: TokenPermitDomain; owner: Address; spender: Address; value: bigint; nonce: bigint; deadline: bigint };

/**
 * The EIP-712 typed data of `token.permit(owner, spender, value, deadline)`, ready for a wallet's
 * `signTypedData`; the signature goes to `POST /gasless/submit` as `approval_signature`.
 */
export function buildTokenPermitTypedData({ domain, owner, spender, value, nonce, deadline }: TokenPermitParameters) {
  return {
    domain,
    types: tokenPermitTypes,
    primaryType: "Permit" as const,
    message: { owner, spender, value, nonce, deadline },
  };
}
