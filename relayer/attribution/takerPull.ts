import { encodeFunctionData, erc20Abi, hexToBigInt, size, type Address, type Hex, type PublicClient } from "viem";
import { encodeTokenPermitCall, type GaslessCall } from "../../sdk";
import { readOrRefused } from "./readFailure";

/**
 * Gas for each simulated call into the sell token (its permit, Permit2's pull): its code is not ours,
 * and the router gives its permit 150,000 (TOKEN_PERMIT_GAS); a pull that needs more than this is refused.
 */
const TOKEN_CALL_GAS = 300_000n;

/**
 * What the order's taker-side transfers must move from the taker: its sell amount plus the relayer's
 * fee, or for an exact-output order the maximum it signed for plus the fee (the router pulls what its
 * route needs at the state it meets, which an unpriceable route does not say; the taker signed for up
 * to the maximum and keeps it until the order settles).
 */
export function takerPullAmount(call: GaslessCall): bigint {
  return call.kind === "exactOutput" ? call.order.params.maxSellAmount + call.order.relayerFee : call.order.params.sellAmount + call.order.relayerFee;
}

/** The call's return data; false when the called code reverted or ran out of gas (a fact); a node failure defers the attribution. */
function simulate(client: PublicClient, request: Parameters<PublicClient["call"]>[0], what: string): Promise<Hex | false> {
  return readOrRefused<Hex | false>(client.call(request).then(({ data }) => data ?? "0x"), false, what);
}

/**
 * Whether the taker-side transfers of `call`'s order, simulated at the end of `blockNumber`, are
 * refused: the sell token's EIP-2612 permit to Permit2 when the order carries one (called from the
 * router, as the router calls it), and Permit2's pull of `takerPullAmount` from the taker into the router
 * (`transferFrom` called from Permit2's own address, accepted as Permit2's SafeTransferLib accepts it:
 * no revert, and no return data or `true`). A refusal is the taker's side alone: its balance, its
 * allowance, its permit, or its token refusing its account. Only the taker or its token's own code
 * can make it true; a third party's trade cannot (the amount is fixed by what the taker signed).
 */
export async function takerPullRefused(client: PublicClient, permit2: Address, router: Address, taker: Address, call: GaslessCall, blockNumber: bigint): Promise<boolean> {
  const token = call.order.params.sellToken;
  const amount = takerPullAmount(call);
  if (call.kind === "withTokenPermit") {
    const permit = encodeTokenPermitCall(taker, permit2, call.tokenPermit);
    const applied = await simulate(client, { account: router, to: token, data: permit, blockNumber, gas: TOKEN_CALL_GAS }, `the taker's token permit at block ${blockNumber}`);
    // The permit would grant the allowance within the swap: its pull cannot be simulated before it
    // (one call), so only the balance says anything then.
    if (applied !== false) {
      const balance = await simulate(client, { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [taker] }), blockNumber, gas: TOKEN_CALL_GAS }, `the taker's balance at block ${blockNumber}`);
      return balance === false || size(balance) < 32 || hexToBigInt(balance.slice(0, 66) as Hex) < amount;
    }
  }
  const pulled = await simulate(
    client,
    { account: permit2, to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transferFrom", args: [taker, router, amount] }), blockNumber, gas: TOKEN_CALL_GAS },
    `Permit2's pull from the taker at block ${blockNumber}`,
  );
  if (pulled === false) return true;
  return !(pulled === "0x" || (size(pulled) >= 32 && hexToBigInt(pulled.slice(0, 66) as Hex) === 1n));
}
