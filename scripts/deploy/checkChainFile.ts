import { BaseError, domainSeparator, encodePacked, formatGwei, getAddress, getContractAddress, keccak256, parseAbi, toBytes, type Address, type PublicClient } from "viem";
import { externalAddressesOf, type ChainFile, type ChainFileV2Venue, type ChainFileV3Venue } from "../../sdk/chain/chainFile";
import { DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_GAS_PRICE, DETERMINISTIC_DEPLOYER_SIGNER, deterministicDeployerState } from "./deterministicDeployer";
import { sortTokens, v3PoolAddress } from "../../sdk/amm/v3/poolAddress";

/** A field of the chain file that does not match the chain, and how. */
export type ChainFileProblem = Readonly<{ field: string; problem: string }>;

const permit2Abi = parseAbi(["function DOMAIN_SEPARATOR() view returns (bytes32)"]);
const symbolAbi = parseAbi(["function symbol() view returns (string)"]);
const v2FactoryAbi = parseAbi(["function createPair(address tokenA, address tokenB) returns (address pair)"]);
const v3FactoryAbi = parseAbi(["function feeAmountTickSpacing(uint24 fee) view returns (int24)", "function createPool(address tokenA, address tokenB, uint24 fee) returns (address pool)"]);
const peripheryAbi = parseAbi(["function factory() view returns (address)", "function WETH9() view returns (address)"]);

/**
 * Two addresses no real pool pairs, for simulating pool creation (eth_call, nothing is sent): the
 * factory's answer must be the address the chain file's init-code hash gives.
 */
const PROBE_TOKENS = [keccak256(toBytes("chain-file probe token a")), keccak256(toBytes("chain-file probe token b"))].map((word) => getAddress(`0x${word.slice(-40)}`)) as [Address, Address];

function reason(error: unknown): string {
  return error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error);
}

async function checkV2Venue(client: PublicClient, venue: ChainFileV2Venue, index: number, from: Address): Promise<ChainFileProblem[]> {
  const factory = venue.factory.address!;
  const [token0, token1] = sortTokens(...PROBE_TOKENS);
  const expected = getContractAddress({ opcode: "CREATE2", from: factory, salt: keccak256(encodePacked(["address", "address"], [token0, token1])), bytecodeHash: venue.poolInitCodeHash });
  try {
    const { result } = await client.simulateContract({ account: from, address: factory, abi: v2FactoryAbi, functionName: "createPair", args: PROBE_TOKENS });
    if (getAddress(result) !== expected) return [{ field: `venues.${index}.poolInitCodeHash`, problem: `the factory creates pairs at ${result}, not where the init-code hash puts them (${expected})` }];
  } catch (error) {
    return [{ field: `venues.${index}.factory.address`, problem: `createPair does not answer as a Uniswap V2 factory: ${reason(error)}` }];
  }
  return [];
}

async function checkV3Venue(client: PublicClient, venue: ChainFileV3Venue, index: number, weth: Address | null, from: Address): Promise<ChainFileProblem[]> {
  const factory = venue.factory.address!;
  const problems: ChainFileProblem[] = [];
  for (const [tierIndex, tier] of venue.feeTiers.entries()) {
    const spacing = await client.readContract({ address: factory, abi: v3FactoryAbi, functionName: "feeAmountTickSpacing", args: [tier.fee] }).catch(() => undefined);
    if (spacing !== tier.tickSpacing) problems.push({ field: `venues.${index}.feeTiers.${tierIndex}`, problem: `the factory's tick spacing for fee ${tier.fee} is ${spacing ?? "unreadable"}, not ${tier.tickSpacing}` });
  }
  const fee = venue.feeTiers[0]!.fee;
  const expected = v3PoolAddress(factory, venue.poolInitCodeHash, PROBE_TOKENS[0], PROBE_TOKENS[1], fee);
  try {
    const { result } = await client.simulateContract({ account: from, address: factory, abi: v3FactoryAbi, functionName: "createPool", args: [...PROBE_TOKENS, fee] });
    if (getAddress(result) !== expected) problems.push({ field: `venues.${index}.poolInitCodeHash`, problem: `the factory creates pools at ${result}, not where the init-code hash puts them (${expected})` });
  } catch (error) {
    problems.push({ field: `venues.${index}.factory.address`, problem: `createPool does not answer as a Uniswap V3 factory: ${reason(error)}` });
  }
  for (const role of ["quoter", "positionManager"] as const) {
    const address = venue[role].address!;
    const [theirFactory, theirWeth] = await Promise.all([
      client.readContract({ address, abi: peripheryAbi, functionName: "factory" }).catch(() => undefined),
      client.readContract({ address, abi: peripheryAbi, functionName: "WETH9" }).catch(() => undefined),
    ]);
    if (theirFactory === undefined || getAddress(theirFactory) !== factory) problems.push({ field: `venues.${index}.${role}.address`, problem: `its factory() is ${theirFactory ?? "unreadable"}, not the venue's factory ${factory}` });
    else if (weth !== null && (theirWeth === undefined || getAddress(theirWeth) !== weth)) problems.push({ field: `venues.${index}.${role}.address`, problem: `its WETH9() is ${theirWeth ?? "unreadable"}, not wrappedNative ${weth}` });
  }
  return problems;
}

/**
 * Whether the deterministic deployer's keyless transaction can still place it here, read before the
 * deploy funds its signer: that transaction is fixed (nonce 0, 100 gwei, no chain id), so a signer
 * that already used nonce 0 means the proxy can never sit at its address on this chain, and a base fee
 * above 100 gwei means the transaction cannot be mined now. (A node that refuses transactions without a
 * chain id says so only when it is sent; the deploy's error then names the step.)
 */
async function keylessDeploymentProblems(client: PublicClient): Promise<ChainFileProblem[]> {
  const field = "deterministicDeployer.address";
  const problems: ChainFileProblem[] = [];
  const nonce = await client.getTransactionCount({ address: DETERMINISTIC_DEPLOYER_SIGNER });
  if (nonce > 0) {
    problems.push({
      field,
      problem: `the proxy is absent and its keyless signer ${DETERMINISTIC_DEPLOYER_SIGNER} has already sent ${nonce} transaction(s) here, so its deployment (nonce 0) can never be mined: this chain cannot host our CREATE2 addresses; ask its operators to preinstall ${DETERMINISTIC_DEPLOYER}`,
    });
  }
  const baseFee = (await client.getBlock({ blockTag: "latest" })).baseFeePerGas;
  if (baseFee !== null && baseFee > DETERMINISTIC_DEPLOYER_GAS_PRICE) {
    problems.push({ field, problem: `the proxy is absent and its keyless deployment pays a fixed ${formatGwei(DETERMINISTIC_DEPLOYER_GAS_PRICE)} gwei, below the chain's base fee of ${formatGwei(baseFee)} gwei: run again when the base fee is lower` });
  }
  return problems;
}

/**
 * Checks every external address of `chain` on the chain at `client` before anything is sent: each is
 * known and has code, and each answers as what the file says it is (Permit2's DOMAIN_SEPARATOR for
 * this chain id and address, the wrapped token's symbol, each factory's fee tiers and the pools it
 * would create, each quoter's and position manager's factory and WETH). Reads and simulations only.
 * Returns the problems, each naming its field; none means the file matches the chain.
 */
export async function checkChainFile(client: PublicClient, chain: ChainFile, from: Address): Promise<ChainFileProblem[]> {
  const problems: ChainFileProblem[] = [];
  const chainId = await client.getChainId();
  if (chainId !== chain.chainId) return [{ field: "chainId", problem: `the file says ${chain.chainId}, the chain is ${chainId}` }];
  if (chain.deterministicDeployer.address !== null && chain.deterministicDeployer.address !== DETERMINISTIC_DEPLOYER) {
    problems.push({ field: "deterministicDeployer.address", problem: `our contracts deploy through ${DETERMINISTIC_DEPLOYER}, not ${chain.deterministicDeployer.address}` });
  }
  const deployerState = await deterministicDeployerState(client);
  if (deployerState === "foreign") problems.push({ field: "deterministicDeployer.address", problem: `${DETERMINISTIC_DEPLOYER} holds other code than the deterministic deployment proxy` });
  if (deployerState === "absent") problems.push(...(await keylessDeploymentProblems(client)));

  const needed = externalAddressesOf(chain).filter(({ field }) => field !== "deterministicDeployer.address");
  const missing = new Set<string>();
  for (const { field, address } of needed) {
    if (address === null) {
      problems.push({ field, problem: "unknown (null): fill it in from the chain's public deployment list before deploying" });
      missing.add(field);
      continue;
    }
    const code = await client.getCode({ address });
    if (code === undefined || code === "0x") {
      problems.push({ field, problem: `no code at ${address} on chain ${chainId}` });
      missing.add(field);
    }
  }

  if (!missing.has("permit2.address")) {
    const permit2 = chain.permit2.address!;
    const expected = domainSeparator({ domain: { name: "Permit2", chainId, verifyingContract: permit2 } });
    const actual = await client.readContract({ address: permit2, abi: permit2Abi, functionName: "DOMAIN_SEPARATOR" }).catch(() => undefined);
    if (actual !== expected) problems.push({ field: "permit2.address", problem: `DOMAIN_SEPARATOR() is ${actual ?? "unreadable"}, not Permit2's for chain ${chainId} at ${permit2} (${expected})` });
  }
  if (!missing.has("wrappedNative.address")) {
    const symbol = await client.readContract({ address: chain.wrappedNative.address!, abi: symbolAbi, functionName: "symbol" }).catch(() => undefined);
    if (symbol !== chain.wrappedNative.symbol) problems.push({ field: "wrappedNative.address", problem: `symbol() is ${symbol === undefined ? "unreadable" : JSON.stringify(symbol)}, not ${JSON.stringify(chain.wrappedNative.symbol)}` });
  }
  const weth = missing.has("wrappedNative.address") ? null : chain.wrappedNative.address;
  for (const [index, venue] of chain.venues.entries()) {
    if ([...missing].some((field) => field.startsWith(`venues.${index}.`))) continue;
    problems.push(...(venue.type === "uniswap-v2" ? await checkV2Venue(client, venue, index, from) : await checkV3Venue(client, venue, index, weth, from)));
  }
  return problems;
}
