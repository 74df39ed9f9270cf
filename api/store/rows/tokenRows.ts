import { getAddress, type Address, type Hex } from "viem";
import type { ManifestPool } from "../../../sdk";
import type { NewTokenOverride, TokenDemandObservation, TokenDemandSummary, TokenOverride, TokenStatus, TokenStatusSource } from "../store";
import type { TransferTax } from "../../tokens/transferTax";
import type { Selectable } from "kysely";
import type { TokenOverridesTable } from "../apiSchema";
import { date } from "./msDate";

/** `token_demand` and `token_overrides` rows, as both engines return them. */
export type TokenDemandSummaryRow = { chain_id: number; token: string; integrators: number; first_seen: number; last_seen: number };

export type TokenOverrideRow = Selectable<TokenOverridesTable>;

export function demandParams(observation: TokenDemandObservation) {
  return {
    chain_id: observation.chainId,
    token: observation.token.toLowerCase(),
    integrator_id: observation.integratorId,
    first_seen: observation.firstSeen.getTime(),
    last_seen: observation.lastSeen.getTime(),
  };
}

export function demandFromRow(row: TokenDemandSummaryRow): TokenDemandSummary {
  return {
    chainId: row.chain_id,
    token: row.token as Address,
    integrators: row.integrators,
    firstSeen: date(row.first_seen),
    lastSeen: date(row.last_seen),
  };
}

export function tokenOverrideParams(override: NewTokenOverride) {
  return {
    chain_id: override.chainId,
    token: override.token.toLowerCase(),
    status: override.status,
    source: override.source,
    symbol: override.symbol ?? null,
    decimals: override.decimals ?? null,
    pool_address: override.pool?.address.toLowerCase() ?? null,
    pool_token0: override.pool?.token0.toLowerCase() ?? null,
    pool_token1: override.pool?.token1.toLowerCase() ?? null,
    pool_fee_bps: override.pool?.feeBps ?? null,
    buy_tax_bps: override.tax?.buyTaxBps ?? null,
    sell_tax_bps: override.tax?.sellTaxBps ?? null,
    transfer_tax_bps: override.tax?.transferTaxBps ?? null,
    reason: override.reason ?? null,
    chain_run: override.chainRun?.toLowerCase() ?? null,
    at: override.at.getTime(),
  };
}

export function tokenOverrideFromRow(row: TokenOverrideRow): TokenOverride {
  const pool: ManifestPool | undefined =
    row.pool_address !== null && row.pool_token0 !== null && row.pool_token1 !== null && row.pool_fee_bps !== null
      ? {
          address: getAddress(row.pool_address),
          token0: getAddress(row.pool_token0),
          token1: getAddress(row.pool_token1),
          type: "uniswap-v2",
          source: "uniswap-v2",
          feeBps: row.pool_fee_bps,
        }
      : undefined;
  const tax: TransferTax | undefined =
    row.buy_tax_bps !== null && row.sell_tax_bps !== null && row.transfer_tax_bps !== null
      ? { buyTaxBps: Number(row.buy_tax_bps), sellTaxBps: Number(row.sell_tax_bps), transferTaxBps: Number(row.transfer_tax_bps) }
      : undefined;
  return {
    chainId: row.chain_id,
    token: row.token as Address,
    status: row.status as TokenStatus,
    source: row.source as TokenStatusSource,
    symbol: row.symbol ?? undefined,
    decimals: row.decimals ?? undefined,
    pool,
    tax,
    reason: row.reason ?? undefined,
    chainRun: (row.chain_run ?? undefined) as Hex | undefined,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}
