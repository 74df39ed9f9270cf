import type { RelayContext } from "./relayContext";

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
 * work) and below its daily spend cap (RELAYER_DAILY_SPEND_CAP_ETH). Each signer's balance and spend are listed; one below the floor is logged at warn. A few cheap calls.
 */
export async function relayerReadiness(context: RelayContext): Promise<{ ready: boolean; body: Record<string, unknown> }> {
  const { store, client, pool, config, logger } = context;
  const [database, chain, balances] = await Promise.all([
    check(() => store.ping()),
    check(() => client.getBlockNumber({ cacheTime: 0 })),
    check(() => Promise.all(pool.signers.map(async (signer) => ({ signer: signer.address, balance: await client.getBalance({ address: signer.address }) })))),
  ]);
  const now = context.now().getTime();
  const signers = balances.ok
    ? balances.value.map(({ signer, balance }, index) => {
        const funded = balance >= config.minSignerBalanceWei;
        if (!funded) logger.warn({ signer, balance: balance.toString(), floor: config.minSignerBalanceWei.toString() }, "signer balance below the floor; no new work for it");
        const spend = pool.signers[index]!.spend;
        return { address: signer, balance_wei: balance.toString(), funded, daily_spend_wei: spend.spent(now).toString(), spend_cap_reached: spend.exhausted(now) };
      })
    : [];
  const funded = signers.some((signer) => signer.funded);
  const usable = signers.some((signer) => signer.funded && !signer.spend_cap_reached);
  const checks = {
    database: database.ok ? "ok" : database.error,
    chain: chain.ok ? "ok" : chain.error,
    signers: balances.ok
      ? !funded
        ? `no signer above the floor of ${config.minSignerBalanceWei} wei`
        : !usable
          ? `every funded signer reached its daily spend cap of ${config.dailySpendCapWei} wei (RELAYER_DAILY_SPEND_CAP_ETH); relays resume as the day's spending rolls off`
          : "ok"
      : balances.error,
  };
  return { ready: database.ok && chain.ok && usable, body: { checks, signers, relayer_id: config.relayerId } };
}
