import { getAddress, type Hex } from "viem";
import { sql, type Selectable } from "kysely";
import { step, type SqlDatabase, type TransactionBody } from "../../sdk/storage/sqlDatabase";
import type { RelaySchema, TopUpsTable } from "./relaySchema";
import type { TopUpCap, TopUpIntent, TopUpRecord, TopUpRecorded, TopUpStatus } from "./relayStore";

const COLUMNS = ["id", "signer", "treasury", "amount_wei", "nonce", "raw_tx", "tx_hash", "status", "created_at", "updated_at"] as const;

/** The treasury's top-up ledger (relayer_topups), written once for SQLite and PostgreSQL. */
export class SqlTopUps {
  readonly #db: SqlDatabase<RelaySchema>;

  constructor(db: SqlDatabase<RelaySchema>) {
    this.#db = db;
  }

  /**
   * Records a top-up as an intent, with its signed bytes, before it is sent; or refuses it (RelayStore).
   * Several relayers may share one treasury: the checks and the insert run in one transaction that
   * holds the ledger (PostgreSQL: a table lock; SQLite: its immediate transaction holds the file).
   */
  async recordTopUp(intent: TopUpIntent, at: Date, cap: TopUpCap): Promise<TopUpRecorded> {
    const { build, capabilities } = this.#db;
    const treasury = intent.treasury.toLowerCase();
    const signer = intent.signer.toLowerCase();
    const lock = capabilities.locks ? sql`LOCK TABLE relayer_topups IN SHARE ROW EXCLUSIVE MODE`.compile(build) : undefined;
    const unfinished = [sql.lit<TopUpStatus>("intent"), sql.lit<TopUpStatus>("sent")];
    const pending = build.selectFrom("relayer_topups").select(["signer", "treasury", "nonce"]).where("status", "in", unfinished);
    const window = build.selectFrom("relayer_topups").select("amount_wei").where("treasury", "=", treasury).where("status", "<>", "failed").where("created_at", ">=", cap.since.getTime());
    const insert = build
      .insertInto("relayer_topups")
      .values({ signer, treasury, amount_wei: intent.amountWei.toString(), nonce: intent.nonce, raw_tx: intent.rawTx, tx_hash: intent.txHash, status: "intent", created_at: at.getTime(), updated_at: at.getTime() })
      .returning("id");
    return this.#db.transaction(function* (): TransactionBody<TopUpRecorded> {
      if (lock !== undefined) yield* step.changes(lock);
      const open = yield* step.rows(pending);
      if (open.some((row) => row.signer === signer)) return { refused: "unfinished" };
      if (open.some((row) => row.treasury === treasury && Number(row.nonce) === intent.nonce)) return { refused: "nonce" };
      const spentWei = (yield* step.rows(window)).reduce((total, row) => total + BigInt(row.amount_wei), 0n);
      if (spentWei + intent.amountWei > cap.capWei) return { refused: "cap", spentWei };
      const row = yield* step.first(insert);
      return { id: Number(row!.id) };
    });
  }

  async setTopUpStatus(id: number, status: TopUpStatus, at: Date): Promise<void> {
    await this.#db.changes(this.#db.build.updateTable("relayer_topups").set({ status, updated_at: at.getTime() }).where("id", "=", id));
  }

  /** Newest first; those created at or after `since` (all without it), at most `limit`. */
  async topUps(query: { since?: Date; limit?: number } = {}): Promise<TopUpRecord[]> {
    const select = this.#db.build
      .selectFrom("relayer_topups")
      .select(COLUMNS)
      .where("created_at", ">=", query.since?.getTime() ?? 0)
      .orderBy("id", "desc")
      .limit(query.limit ?? 1000);
    return (await this.#db.rows(select)).map(topUpFromRow);
  }

  /** Still `intent` or `sent`, oldest first. The statuses are literals, as in the partial index that serves this. */
  async unfinishedTopUps(): Promise<TopUpRecord[]> {
    const unfinished = [sql.lit<TopUpStatus>("intent"), sql.lit<TopUpStatus>("sent")];
    return (await this.#db.rows(this.#db.build.selectFrom("relayer_topups").select(COLUMNS).where("status", "in", unfinished).orderBy("id"))).map(topUpFromRow);
  }
}

function topUpFromRow(row: Selectable<TopUpsTable>): TopUpRecord {
  return {
    id: Number(row.id),
    signer: getAddress(row.signer),
    treasury: getAddress(row.treasury),
    amountWei: BigInt(row.amount_wei),
    nonce: Number(row.nonce),
    rawTx: row.raw_tx as Hex,
    txHash: row.tx_hash as Hex,
    status: row.status,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}
