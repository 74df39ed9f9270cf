import type { RelayContext } from "./queue/relayContext";
import { errorSummary } from "../sdk/errors/errorSummary";

const CHECK_TIMEOUT_MS = 2_000;

async function check<T>(probe: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    return { ok: true, value: await Promise.race([probe(), timeout]) };
  } catch (error) {
    return { ok: false, error: errorSummary(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the relayer can work (GET /ready): its database answers, its chain answers, and at least
 * one signer holds more than `RELAYER_MIN_SIGNER_BALANCE_ETH` (a signer below the floor gets no new
 * work), below its daily spend cap (RELAYER_DAILY_SPEND_CAP_ETH), and whose key backend signs (its
 * last signature or the upkeep's probe did not fail: signingHealth.ts). Each signer's balance, spend,
 * drain state and signing are listed; `degraded` names the undrained signers that get no work (below
 * the floor, past the cap, or failing to sign) while others still do. A few cheap calls and no
 * signature (the upkeep probes a failing backend, not each /ready); the warn logs are the upkeep's
 * (signerUpkeep.ts, treasury.ts), once per episode, not once per probe. A treasury key (optional) is
 * listed with its signing; one that fails degrades the relayer without making it unready.
 */
export async function relayerReadiness(context: RelayContext): Promise<{ ready: boolean; body: Record<string, unknown> }> {
  const { store, client, pool, config } = context;
  // One list throughout: an operator may add or retire a signer while the balances are read.
  const pooled = pool.signers;
  const [database, chain, balances] = await Promise.all([
    check(() => store.ping()),
    check(() => client.getBlockNumber({ cacheTime: 0 })),
    check(() => Promise.all(pooled.map(async (signer) => ({ signer: signer.address, balance: await client.getBalance({ address: signer.address }) })))),
  ]);
  const now = context.now().getTime();
  const signers = balances.ok
    ? balances.value.map(({ signer, balance }, index) => {
        const funded = balance >= config.minSignerBalanceWei;
        const { spend, drained, signing } = pooled[index]!;
        const failure = signing.failure;
        return {
          address: signer,
          balance_wei: balance.toString(),
          funded,
          drained,
          daily_spend_wei: spend.spent(now).toString(),
          spend_cap_reached: spend.exhausted(now),
          signing: failure === undefined ? "ok" : `fails since ${failure.since.toISOString()}: ${failure.error}`,
        };
      })
    : [];
  const funded = signers.some((signer) => signer.funded);
  const usable = signers.some((signer) => signer.funded && !signer.drained && !signer.spend_cap_reached && signer.signing === "ok");
  const active = signers.filter((signer) => !signer.drained);
  // Funded, undrained and under the cap, so only their backends keep them from work.
  const unsigning = signers.filter((signer) => signer.funded && !signer.drained && !signer.spend_cap_reached);
  const checks = {
    database: database.ok ? "ok" : database.error,
    chain: chain.ok ? "ok" : chain.error,
    signers: balances.ok
      ? signers.length === 0
        ? "no signer: every one was retired (relayer-admin signers retire); resume one with `npm run relayer-admin -- signers resume <address>`, or add one with `signers add`"
        : !funded
        ? `no signer above the floor of ${config.minSignerBalanceWei} wei`
        : active.length === 0
          ? "every signer is drained (relayer-admin signers drain); resume one with `npm run relayer-admin -- signers resume <address>`"
          : !usable && unsigning.length > 0
            ? `no signer can sign: every funded, undrained signer under its cap has a key backend that fails (${unsigning.map((signer) => `${signer.address} ${signer.signing}`).join("; ")}); check the backend (for pkcs11: the module, the token and the PIN file); a probe tries again at each signer check`
          : !usable
          ? `every funded, undrained signer reached its daily spend cap of ${config.dailySpendCapWei} wei (RELAYER_DAILY_SPEND_CAP_ETH); relays resume as the day's spending rolls off`
          : "ok"
      : balances.error,
  };
  // Degraded: still ready, but with less capacity than configured (some signer low on ETH, past its cap
  // or failing to sign), or a treasury key that cannot sign its top-ups (relaying goes on without them).
  const degraded = signers.filter((signer) => !signer.drained && (!signer.funded || signer.spend_cap_reached || signer.signing !== "ok")).map((signer) => signer.address);
  const treasuryFailure = context.treasury?.signing.failure;
  const treasury = context.treasury && { address: context.treasury.address, signing: treasuryFailure === undefined ? "ok" : `fails since ${treasuryFailure.since.toISOString()}: ${treasuryFailure.error}` };
  const degradation = {
    ...(degraded.length === 0 ? {} : { signers_without_work: degraded }),
    ...(treasuryFailure === undefined ? {} : { treasury_signing: "the treasury key's backend fails to sign: no top-ups until a probe signs (at each signer check); check its backend" }),
  };
  return {
    ready: database.ok && chain.ok && usable,
    body: { checks, signers, ...(treasury === undefined ? {} : { treasury }), ...(Object.keys(degradation).length === 0 ? {} : { degraded: degradation }), relayer_id: config.relayerId },
  };
}
