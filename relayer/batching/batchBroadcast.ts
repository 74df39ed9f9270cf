import { getAbiItem, keccak256, toFunctionSelector, type Address, type Hex } from "viem";
import { decodeSwapGasless, encodeSwapGaslessBatch, gaslessSwapRouterAbi } from "../../sdk";
import { BATCH_ORDER_GAS, batchGasLimit, batchOrderGasCap } from "../../sdk/relay/batchGasLimit";
import { calldataGas } from "../../sdk/relay/calldataGas";
import { relayGasLimitOfCalldata } from "../../sdk/relay/relayGasLimit";
import { type BlockHead } from "../../sdk/chain/chainHead";

const SWAP_GASLESS_SELECTOR = toFunctionSelector(getAbiItem({ abi: gaslessSwapRouterAbi, name: "swapGasless" }));

/**
 * Whether a relay's calldata is a plain `swapGasless`, the only order a batch carries: one with a token
 * permit or an ERC-1271 signature uses its own entry point and goes out alone.
 */
export function isBatchable(data: Hex): boolean {
  return data.slice(0, 10).toLowerCase() === SWAP_GASLESS_SELECTOR;
}
import { sendRaw, type SendOutcome } from "../broadcast/broadcaster";
import { cancelFees, replacementFees, type Fees } from "../broadcast/feeBump";
import { effectiveGasPrice, feeShortfall } from "../intake/feeCoverage";
import type { RelayContext } from "../queue/relayContext";
import type { Signer } from "../broadcast/signerPool";
import type { BatchExpectation, BatchRefusal, RelayRecord, RelayStore } from "../store/relayStore";

/**
 * The gas cap a relay gets as a member of a batch: its single-swap limit (what its fee was checked
 * against) less what the batch pays for it outside its call (`batchOrderGasCap`).
 */
export function memberGasCap(relay: Pick<RelayRecord, "data" | "estimatedGas">): bigint {
  return batchOrderGasCap(relayGasLimitOfCalldata(relay.estimatedGas, relay.data), relay.data);
}

/**
 * Whether a relay may join a batch: a plain `swapGasless` (see isBatchable) whose share of its limit
 * fits the router's BATCH_ORDER_GAS; a costlier route goes alone, with its whole limit.
 */
export function fitsBatch(relay: Pick<RelayRecord, "data" | "estimatedGas">): boolean {
  return isBatchable(relay.data) && memberGasCap(relay) <= BATCH_ORDER_GAS;
}

/**
 * The calldata and gas limit of `swapGaslessBatch` over `relays`, in their order (a relay's index is
 * its position), each order capped at its share of its own single-swap limit (`memberGasCap`).
 */
export function batchCall(relays: readonly Pick<RelayRecord, "data" | "estimatedGas">[]): { data: Hex; gas: bigint } {
  const caps = relays.map(memberGasCap);
  const data = encodeSwapGaslessBatch(
    relays.map((relay) => decodeSwapGasless(relay.data)),
    caps,
  );
  return { data, gas: batchGasLimit(caps, calldataGas(data)) };
}

export type BatchPlan = {
  kind: "swap" | "cancel";
  router: Address;
  /** The members, in position order. */
  relays: readonly RelayRecord[];
  nonce: number;
  fees: Fees;
  expect: BatchExpectation;
};

export type BatchBroadcast =
  | { recorded: true; hash: Hex; raw: Hex; outcome: SendOutcome; error?: string }
  /** Some members were no longer what the batch was built from: nothing was recorded nor sent. */
  | { recorded: false; refused: { relayId: string; refusal: BatchRefusal }[] };

/**
 * Signs one transaction for a batch of relays (`swapGaslessBatch` of their orders, or a cancel: a
 * zero-value self-transfer), writes it on every member with its position in one database
 * transaction, and only then broadcasts it, as `signPersistSend` does for one relay. The write is
 * fenced by this relayer's lease on every member and by each member's state (`plan.expect`).
 */
export async function signPersistSendBatch(
  deps: { client: RelayContext["client"]; store: RelayStore; chainId: number; now: () => Date; relayerId: string },
  signer: Signer,
  plan: BatchPlan,
): Promise<BatchBroadcast> {
  const call = plan.kind === "cancel" ? { data: "0x" as Hex, gas: 21_000n } : batchCall(plan.relays);
  const raw = await signer.account.signTransaction({
    type: "eip1559",
    chainId: deps.chainId,
    nonce: plan.nonce,
    to: plan.kind === "cancel" ? signer.address : plan.router,
    data: call.data,
    value: 0n,
    gas: call.gas,
    maxFeePerGas: plan.fees.maxFeePerGas,
    maxPriorityFeePerGas: plan.fees.maxPriorityFeePerGas,
  });
  const hash = keccak256(raw);
  const sentAt = deps.now();
  const recording = await deps.store.recordBatchBroadcast(
    {
      transaction: { hash, kind: plan.kind, signer: signer.address, nonce: plan.nonce, raw, maxFeePerGas: plan.fees.maxFeePerGas, maxPriorityFeePerGas: plan.fees.maxPriorityFeePerGas, sentAt },
      members: plan.relays.map((relay, position) => ({ relayId: relay.id, position })),
      expect: plan.expect,
    },
    { owner: deps.relayerId, now: sentAt },
  );
  if (recording.outcome === "refused") return { recorded: false, refused: recording.refused };
  signer.nonces.signed(plan.nonce, raw);
  const { outcome, error } = await sendRaw(deps.client, raw);
  return { recorded: true, hash, raw, outcome, ...(error === undefined ? {} : { error }) };
}

export type BatchReplacement =
  | { outcome: SendOutcome; hash: Hex; kind: "swap" | "cancel"; members: string[] }
  /**
   * No valid replacement under RELAYER_MAX_FEE_GWEI (`ceiling`), or no member whose fee covers its
   * share at the bumped fees (`below_cost`): the previous transaction was sent again, unchanged.
   */
  | { outcome: "ceiling" | "below_cost"; resent: SendOutcome }
  /** Every member changed or went to another relayer, or another replacement came first: nothing was signed. */
  | { outcome: "empty" };

/**
 * Replaces the pending batch transaction `latest` (same signer, same nonce, fees bumped by the
 * mempool's rule) with a batch rebuilt from its members that are still pending on it, leaving out
 * `exclude` (a relay cancelled, or past its deadline). With nobody left, or `kind: "cancel"`, the
 * replacement is a cancel that frees the nonce, recorded on the members that still hold it. A swap
 * replacement also leaves out every member whose signed fee no longer covers its share at the bumped
 * fees (the bound its batch was built with, `feeShortfall`); when that leaves nobody and nobody was
 * to leave, nothing is re-signed: the previous transaction, whose fees they pay, is sent again. A left
 * out relay keeps its older transactions on record: if one of them is mined first it is finished from
 * that receipt; if the replacement is, its nonce went to another transaction and it is sent anew
 * (through the queue's checks: it waits while its fee does not cover its gas).
 *
 * Runs inside the signer's lock; throws RelayLeaseError never, and nothing is sent when the store
 * refuses the whole write (each refusal drops its member and the batch is rebuilt).
 */
export async function replaceBatch(
  context: RelayContext,
  signer: Signer,
  latest: { hash: Hex; raw: Hex; nonce: number; fees: Fees; router: Address },
  options: { exclude: ReadonlySet<string>; kind: "swap" | "cancel"; head: BlockHead; /** For a cancellation: past the fee ceiling by one bump if need be (see cancelFees). */ cancelling?: boolean },
): Promise<BatchReplacement> {
  const { store, config, client, logger } = context;
  const network = { baseFeePerGas: options.head.baseFeePerGas, priorityFeePerGas: config.priorityFeeWei };
  const fees = options.cancelling === true ? cancelFees(latest.fees, network, config.maxFeeWei) : replacementFees(latest.fees, network, config.maxFeeWei);
  if (fees === undefined) return { outcome: "ceiling", resent: (await sendRaw(client, latest.raw)).outcome };
  const members = await store.batchMembers(latest.hash);
  const relays = (await Promise.all(members.map((member) => store.getRelay(member.relayId)))).filter(
    (relay): relay is RelayRecord =>
      relay !== undefined && relay.status === "submitted" && relay.signerNonce === latest.nonce && relay.signer?.toLowerCase() === signer.address.toLowerCase(),
  );
  const gasPrice = effectiveGasPrice(fees, options.head.baseFeePerGas);
  const unpaid = new Set(
    options.kind === "cancel" ? [] : relays.filter((relay) => !options.exclude.has(relay.id) && feeShortfall(relay, gasPrice, config.maxLossBps) !== undefined).map((relay) => relay.id),
  );
  return signer.exclusive(async () => {
    // Another replacement of the same transaction (the watcher's bump, a cancellation) went first.
    const newest = await store.latestAtNonce(signer.address, latest.nonce);
    if (newest !== undefined && newest.toLowerCase() !== latest.hash.toLowerCase()) return { outcome: "empty" };
    let keep = relays.filter((relay) => !options.exclude.has(relay.id) && !unpaid.has(relay.id));
    let kind = options.kind;
    if (unpaid.size > 0) logger.warn({ replaced: latest.hash, unpaid: [...unpaid], gasPrice: gasPrice.toString() }, "batch members whose fee does not cover their share at the bumped fees are left out of the replacement");
    // Only members whose fee no longer covers the bump, and nobody asked to leave: the batch stays as
    // it is (its members pay for its fees), sent again rather than bumped at the operator's expense.
    if (keep.length === 0 && unpaid.size > 0 && !relays.some((relay) => options.exclude.has(relay.id))) {
      return { outcome: "below_cost", resent: (await sendRaw(client, latest.raw)).outcome };
    }
    // Nobody left to swap for: the nonce is freed by a cancel recorded on the members asked to leave
    // only. A member left out for its fee keeps its old transaction on record: once the cancel takes
    // the nonce it is sent anew through the queue's checks (never ended by someone else's cancel).
    if (keep.length === 0) {
      kind = "cancel";
      keep = relays.filter((relay) => !unpaid.has(relay.id));
      if (keep.length === 0) return { outcome: "below_cost", resent: (await sendRaw(client, latest.raw)).outcome };
    }
    while (keep.length > 0) {
      const sent = await signPersistSendBatch(
        { client, store, chainId: config.chainId, now: context.now, relayerId: config.relayerId },
        signer,
        { kind, router: latest.router, relays: keep, nonce: latest.nonce, fees, expect: { kind: "pending", signer: signer.address, nonce: latest.nonce } },
      );
      if (sent.recorded) {
        context.metrics?.bumps.inc({ kind });
        logger.info({ hash: sent.hash, replaced: latest.hash, kind, size: keep.length, maxFeePerGas: fees.maxFeePerGas.toString(), outcome: sent.outcome }, "batch replacement broadcast");
        return { outcome: sent.outcome, hash: sent.hash, kind, members: keep.map((relay) => relay.id) };
      }
      const refused = new Set(sent.refused.map((refusal) => refusal.relayId));
      logger.warn({ refused: sent.refused, replaced: latest.hash }, "batch members changed before the replacement was recorded; rebuilding it without them");
      keep = keep.filter((relay) => !refused.has(relay.id));
    }
    return { outcome: "empty" };
  });
}
