import type { RelayContext } from "./queue/relayContext";

const CHECK_TIMEOUT_MS = 2_000;

async function check<T>(probe: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    return { ok: true, value: await Promise.race([probe(), timeout]) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message.split("\n")[0]! : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the relayer can work (GET /ready): its database answers, its chain answers, and at least
 * one signer holds more than `RELAYER_MIN_SIGNER_BALANCE_ETH` (a signer below the floor gets no new
 * work) and below its daily spend cap (RELAYER_DAILY_SPEND_CAP_ETH). Each signer's balance, spend and drain state are listed; `degraded` names the undrained signers
 * that get no work (below the floor, or past the cap) while others still do. A few cheap calls; the
 * floor's warn log is the upkeep's (signerUpkeep.ts), once per drop, not once per probe.
 */
export async function relayerReadiness(context: RelayContext): Promise<{ ready: boolean; body: Record<string, unknown> }> {
  const { store, client, pool, config } = context;
  const [database, chain, balances] = await Promise.all([
    check(() => store.ping()),
    check(() => client.getBlockNumber({ cacheTime: 0 })),
    check(() => Promise.all(pool.signers.map(async (signer) => ({ signer: signer.address, balance: await client.getBalance({ address: signer.address }) })))),
  ]);
  const now = context.now().getTime();
  const signers = balances.ok
    ? balances.value.map(({ signer, balance }, index) => {
        const funded = balance >= config.minSignerBalanceWei;
        const { spend, drained } = pool.signers[index]!;
        return { address: signer, balance_wei: balance.toString(), funded, drained, daily_spend_wei: spend.spent(now).toString(), spend_cap_reached: spend.exhausted(now) };
      })
    : [];
  const funded = signers.some((signer) => signer.funded);
  const usable = signers.some((signer) => signer.funded && !signer.drained && !signer.spend_cap_reached);
  const active = signers.filter((signer) => !signer.drained);
  const checks = {
    database: database.ok ? "ok" : database.error,
    chain: chain.ok ? "ok" : chain.error,
    signers: balances.ok
      ? !funded
        ? `no signer above the floor of ${config.minSignerBalanceWei} wei`
        : active.length === 0
          ? "every signer is drained (relayer-admin signers drain); resume one with `npm run relayer-admin -- signers resume <address>`"
          : !usable
          ? `every funded, undrained signer reached its daily spend cap of ${config.dailySpendCapWei} wei (RELAYER_DAILY_SPEND_CAP_ETH); relays resume as the day's spending rolls off`
          : "ok"
      : balances.error,
  };
  // Degraded: still ready, but with less capacity than configured (some signer low on ETH or past its cap).
  const degraded = signers.filter((signer) => !signer.drained && (!signer.funded || signer.spend_cap_reached)).map((signer) => signer.address);
  return { ready: database.ok && chain.ok && usable, body: { checks, signers, ...(degraded.length === 0 ? {} : { degraded: { signers_without_work: degraded } }), relayer_id: config.relayerId } };
}
