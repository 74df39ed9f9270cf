import { getAddress, type Hex } from "viem";
import { onboardingActions, type OnboardingAction } from "../../../sdk";
import type { Selectable } from "kysely";
import type { ChallengesTable } from "../apiSchema";
import type { ChallengeRecord, NewChallenge } from "../store";
import { date } from "./msDate";

/** A `challenges` row, as both engines return it (times in milliseconds, wallet lowercase). */
export type ChallengeRow = Selectable<ChallengesTable>;

/** The row's values for an insert. */
export function challengeParams(challenge: NewChallenge) {
  return {
    nonce: challenge.nonce,
    wallet: challenge.wallet.toLowerCase(),
    action: challenge.action,
    chain_id: challenge.chainId,
    payload_hash: challenge.payloadHash ?? null,
    message: challenge.message,
    issued_at: challenge.issuedAt.getTime(),
    expires_at: challenge.expiresAt.getTime(),
  };
}

export function challengeFromRow(row: ChallengeRow): ChallengeRecord {
  return {
    nonce: row.nonce,
    wallet: getAddress(row.wallet),
    action: knownAction(row.action),
    chainId: row.chain_id,
    payloadHash: (row.payload_hash ?? undefined) as Hex | undefined,
    message: row.message,
    issuedAt: date(row.issued_at),
    expiresAt: date(row.expires_at),
    usedAt: date(row.used_at),
    failedVerifications: Number(row.failed_verifications),
  };
}

function knownAction(value: string): OnboardingAction {
  const action = onboardingActions.find((candidate) => candidate === value);
  if (action === undefined) throw new Error(`challenges.action holds unknown action ${value}`);
  return action;
}
