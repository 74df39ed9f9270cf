import { BaseError, ContractFunctionZeroDataError, decodeErrorResult, encodeFunctionData, isAddressEqual, keccak256, stringToBytes, type Address, type Hex, type PublicClient } from "viem";
import { uniswapV2PairAbi } from "../../sdk";
import { transferTaxProbe } from "./transferTaxProbeCode";
import { errorSummary } from "../../sdk/errors/errorSummary";

/** What a token takes from its own transfers, in bps of the amount sent (rounded up). */
export type TransferTax = Readonly<{
  /** Of a transfer from its pool (a buy). */
  buyTaxBps: number;
  /** Of a transfer to its pool (a sell). */
  sellTaxBps: number;
  /** Of a transfer between two other holders. */
  transferTaxBps: number;
}>;

export const NO_TRANSFER_TAX: TransferTax = Object.freeze({ buyTaxBps: 0, sellTaxBps: 0, transferTaxBps: 0 });

/** A token that takes anything from any kind of transfer. */
export function isTaxed(tax: TransferTax): boolean {
  return tax.buyTaxBps > 0 || tax.sellTaxBps > 0 || tax.transferTaxBps > 0;
}

export type TransferTaxMeasurement =
  | Readonly<{ ok: true; tax: TransferTax }>
  /**
   * `unreadable`: the chain did not answer, which says nothing about the token. `absent`: the pool has
   * no code (a recorded pool after a devnet restart, say): nothing is routed through it either.
   */
  | Readonly<{ ok: false; reason: string; unreadable: boolean; absent?: boolean }>;

/** Where the probe's code is placed for the call: an address with no known key or code. */
export const TRANSFER_TAX_PROBE_ADDRESS: Address = `0x${keccak256(stringToBytes("TransferTaxProbe.address")).slice(26)}`;

/** The probe runs the token's code (three transfers and a flash swap): its cost is bounded like any call running someone else's code. */
const PROBE_GAS = 3_000_000n;

/** The probe borrows this share of the pool's reserve of the token: 1 %, so a basis point of it is a unit whenever the reserve holds 1,000,000 units. */
const BORROWED_SHARE_DIVISOR = 100n;

/**
 * Measures `token`'s transfer taxes with a simulated flash swap through `pair` (a Uniswap V2 pair of
 * the token): `eth_call` places TransferTaxProbe's code at an unused address (a state override; no
 * balances are faked, no transaction is sent), the pair pays out 1 % of its reserve of the token to
 * the probe (a buy), the probe transfers half to an unrelated address (a transfer) and the rest back
 * to the pair (a sell), and reverts with what each receiver got. Works for any token and pool the
 * node can simulate, at the latest block.
 */
export async function measureTransferTax(client: PublicClient, token: Address, pair: Address): Promise<TransferTaxMeasurement> {
  let amount: bigint;
  try {
    const [[reserve0, reserve1], token0, token1] = await Promise.all([
      client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" }),
      client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token0" }),
      client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token1" }),
    ]);
    if (!isAddressEqual(token0, token) && !isAddressEqual(token1, token)) return { ok: false, reason: `pool ${pair} does not trade ${token}`, unreadable: false };
    amount = (isAddressEqual(token0, token) ? reserve0 : reserve1) / BORROWED_SHARE_DIVISOR;
  } catch (error) {
    if (error instanceof BaseError && error.walk((cause) => cause instanceof ContractFunctionZeroDataError) !== null) {
      return { ok: false, reason: `pool ${pair} has no code`, unreadable: false, absent: true };
    }
    return { ok: false, reason: `pool ${pair} could not be read (${shortMessage(error)})`, unreadable: true };
  }
  if (amount === 0n) return { ok: false, reason: `pool ${pair} holds too little of the token to measure its transfer tax`, unreadable: false };

  const data = encodeFunctionData({ abi: transferTaxProbe.abi, functionName: "measure", args: [pair, token, amount] });
  let revertData: Hex | undefined;
  try {
    await client.call({ to: TRANSFER_TAX_PROBE_ADDRESS, data, gas: PROBE_GAS, stateOverride: [{ address: TRANSFER_TAX_PROBE_ADDRESS, code: transferTaxProbe.deployedBytecode }] });
    return { ok: false, reason: "the transfer-tax probe returned instead of reverting with its result", unreadable: false };
  } catch (error) {
    revertData = revertDataOf(error);
    if (revertData === undefined) return { ok: false, reason: `the transfer-tax simulation could not run (${shortMessage(error)})`, unreadable: true };
  }
  try {
    const decoded = decodeErrorResult({ abi: transferTaxProbe.abi, data: revertData });
    if (decoded.errorName === "TransferTaxProbeResult") {
      const [buyTaxBps, sellTaxBps, transferTaxBps] = decoded.args;
      return { ok: true, tax: { buyTaxBps: Number(buyTaxBps), sellTaxBps: Number(sellTaxBps), transferTaxBps: Number(transferTaxBps) } };
    }
    const args: readonly unknown[] = decoded.args ?? [];
    const detail = args.length === 0 ? decoded.errorName : `${decoded.errorName}: ${args.map(String).join(", ")}`;
    return { ok: false, reason: `its transfers through pool ${pair} failed in simulation (${detail})`, unreadable: false };
  } catch {
    return { ok: false, reason: `its transfers through pool ${pair} failed in simulation (revert data ${revertData.slice(0, 74)})`, unreadable: false };
  }
}

/**
 * The revert data a failed `eth_call` carried, if the node said it reverted: on the error itself or
 * one of its causes, as `data`, or as `data.data` (Hardhat over HTTP answers -32603 with it there).
 */
function revertDataOf(error: unknown): Hex | undefined {
  const hex = (value: unknown): Hex | undefined => (typeof value === "string" && /^0x[0-9a-fA-F]{8,}$/.test(value) ? (value as Hex) : undefined);
  let current: unknown = error;
  for (let depth = 0; depth < 12 && typeof current === "object" && current !== null; depth++) {
    const data = (current as { data?: unknown }).data;
    const found = hex(data) ?? (typeof data === "object" && data !== null ? hex((data as { data?: unknown }).data) : undefined);
    if (found !== undefined) return found;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function shortMessage(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage.split("\n")[0]!;
  return errorSummary(error);
}
