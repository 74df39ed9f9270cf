import Database from "better-sqlite3";
import { expect } from "chai";
import { sql } from "kysely";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresPool, type PostgresPool } from "../../sdk/storage/postgresPool";
import { postgresDatabase, sqliteDatabase, step, template, type SqlDatabase } from "../../sdk/storage/sqlDatabase";
import { createTestDatabase } from "../fixtures/postgresServer";

/** A table of the test's own: counters by name. */
type Schema = { counters: { name: string; value: number } };
const CREATE = "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL CHECK (value >= 0))";

/**
 * The one piece every converted store stands on: the same query and the same transaction body give
 * the same result on both engines, a body that throws leaves nothing behind, and on SQLite a body
 * runs start to end without other code reaching the connection in between (as the hand-written
 * stores' better-sqlite3 transactions do).
 */
const engines: { name: string; open(): Promise<{ db: SqlDatabase<Schema>; close(): Promise<void> }> }[] = [
  {
    name: "SQLite",
    open: async () => {
      const directory = mkdtempSync(join(tmpdir(), "sql-database-"));
      const connection = new Database(join(directory, "test.sqlite"));
      connection.exec(CREATE);
      return {
        db: sqliteDatabase<Schema>(connection),
        close: async () => {
          connection.close();
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "PostgreSQL",
    open: async () => {
      const pool: PostgresPool = openPostgresPool(await createTestDatabase("sql_database"), { max: 4 });
      await pool.query(CREATE);
      return { db: postgresDatabase<Schema>(pool), close: () => pool.end() };
    },
  },
];

for (const engine of engines) {
  describe(`SqlDatabase on ${engine.name}`, function () {
    this.timeout(30_000);
    let db: SqlDatabase<Schema>;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ db, close } = await engine.open());
    });
    afterEach(() => close());

    const add = (name: string, by: number) =>
      db.build
        .insertInto("counters")
        .values({ name, value: by })
        .onConflict((conflict) => conflict.column("name").doUpdateSet((eb) => ({ value: eb("counters.value", "+", eb.ref("excluded.value")) })));
    const values = async () => (await db.rows(db.build.selectFrom("counters").select(["name", "value"]).orderBy("name"))).map((row) => [row.name, Number(row.value)]);

    it("runs a built query and counts the rows a write changed", async () => {
      expect(await db.changes(add("a", 2))).to.equal(1);
      expect(await db.changes(add("a", 3))).to.equal(1);
      expect(await db.changes(db.build.deleteFrom("counters").where("name", "=", "missing"))).to.equal(0);
      expect(await db.first(db.build.selectFrom("counters").select("value").where("name", "=", "a"))).to.deep.equal({ value: 5 });
      expect(await db.first(db.build.selectFrom("counters").select("value").where("name", "=", "missing"))).to.equal(undefined);
    });

    it("commits a transaction body that returns, reading its own writes, and returns its result", async () => {
      const result = await db.transaction(function* () {
        yield* step.changes(add("a", 1));
        yield* step.changes(add("b", 2));
        const row = yield* step.first(db.build.selectFrom("counters").select((eb) => eb.fn.sum<number>("value").as("total")));
        return Number(row?.total);
      });
      expect(result).to.equal(3);
      expect(await values()).to.deep.equal([["a", 1], ["b", 2]]);
    });

    it("rolls back every statement of a body that throws, or whose statement fails; the error reaches the caller", async () => {
      await db.changes(add("a", 1));
      const thrown = await db
        .transaction(function* () {
          yield* step.changes(add("a", 10));
          yield* step.changes(add("b", 10));
          throw new Error("declined");
        })
        .catch((error: Error) => error.message);
      expect(thrown).to.equal("declined");
      const failed = await db
        .transaction(function* () {
          yield* step.changes(add("b", 1));
          yield* step.changes(add("a", -5));
        })
        .catch((error: unknown) => error);
      expect(db.isConstraintError(failed)).to.equal(true);
      expect(await values()).to.deep.equal([["a", 1]]);
    });

    it("lets a body catch a failed statement and go on (the error is thrown into the body)", async () => {
      const outcome = await db.transaction(function* () {
        try {
          yield* step.changes(add("a", -1));
          return "written";
        } catch (error) {
          return db.isConstraintError(error) ? "refused" : "other";
        }
      });
      expect(outcome).to.equal("refused");
    });

    it("runs raw SQL compiled for the engine, for what only one engine has", async () => {
      const raw = db.capabilities.locks ? sql`LOCK TABLE counters IN SHARE ROW EXCLUSIVE MODE` : sql`SELECT 1`;
      await db.transaction(function* () {
        yield* step.changes(raw.compile(db.build));
        yield* step.changes(add("a", 1));
      });
      expect(await values()).to.deep.equal([["a", 1]]);
    });

    it("loses no update when concurrent read-then-write transactions read their row with lockRows", async () => {
      await db.changes(add("a", 0));
      const read = db.lockRows(db.build.selectFrom("counters").select("value").where("name", "=", "a"));
      expect(read.compile().sql.toLowerCase().includes("for update")).to.equal(db.capabilities.locks);
      const increment = () =>
        db.transaction(function* () {
          const row = yield* step.first(read);
          yield* step.changes(db.build.updateTable("counters").set({ value: Number(row!.value) + 1 }).where("name", "=", "a"));
        });
      await Promise.all(Array.from({ length: 12 }, increment));
      expect(await values()).to.deep.equal([["a", 12]]);
    });

    it("claims with lockRows' skipLocked: concurrent claimers each take a different row, none waits for another's", async () => {
      for (const name of ["c0", "c1", "c2", "c3", "c4", "c5"]) await db.changes(add(name, 0));
      const next = db.lockRows(db.build.selectFrom("counters").select("name").where("value", "=", 0).orderBy("name").limit(1), { skipLocked: true });
      expect(next.compile().sql.toLowerCase().includes("skip locked")).to.equal(db.capabilities.locks);
      const claim = () =>
        db.transaction(function* () {
          const row = yield* step.first(next);
          if (row !== undefined) yield* step.changes(db.build.updateTable("counters").set({ value: 1 }).where("name", "=", row.name));
          return row?.name;
        });
      const claimed = await Promise.all(Array.from({ length: 6 }, claim));
      // Without SKIP LOCKED a claimer would wait for the first, find its row taken, and come back empty.
      expect(claimed.filter((name) => name !== undefined).sort()).to.deep.equal(["c0", "c1", "c2", "c3", "c4", "c5"]);
      expect((await values()).every(([, value]) => value === 1)).to.equal(true);
    });

    it("binds SQL text's @name parameters for the engine: a name used twice, and one not given (null)", async () => {
      await db.changes(add("a", 4));
      const text = "SELECT name, value FROM counters WHERE (value = @value OR value = @value + 1) AND value >= @minValue AND (CAST(@missing AS TEXT) IS NULL)";
      expect(await db.rows(db.named(text, { value: 3, minValue: 2 }))).to.deep.equal([{ name: "a", value: 4 }]);
      expect(await db.changes(db.named("UPDATE counters SET value = @value WHERE name = @name", { name: "a", value: 9 }))).to.equal(1);
      expect(await values()).to.deep.equal([["a", 9]]);
    });

    it("binds a template compiled once to each call's values, keeping the query's own constants", async () => {
      const upsert = template<{ name: string; by: number }, never>((param) => add(param("name"), param("by")));
      const above = template<{ floor: number }, { name: string }>((param) => db.build.selectFrom("counters").select("name").where("value", ">", param("floor")).where("name", "<>", "skip").orderBy("name"));
      await db.transaction(function* () {
        for (const [name, by] of [["a", 1], ["b", 5], ["skip", 9], ["a", 2]] as const) yield* step.changes(upsert({ name, by }));
      });
      expect(await values()).to.deep.equal([["a", 3], ["b", 5], ["skip", 9]]);
      expect((await db.rows(above({ floor: 2 }))).map((row) => row.name)).to.deep.equal(["a", "b"]);
      expect((await db.rows(above({ floor: 4 }))).map((row) => row.name)).to.deep.equal(["b"]);
      // One compiled text for every call: only the parameters change.
      expect(above({ floor: 1 }).sql).to.equal(above({ floor: 7 }).sql);
      expect(above({ floor: 7 }).parameters).to.deep.equal([7, "skip"]);
    });

    it("reads with a body outside a transaction, the same statements as inside one", async () => {
      await db.changes(add("a", 1));
      await db.changes(add("b", 2));
      const names = await db.read(function* () {
        const rows = yield* step.rows(db.build.selectFrom("counters").select("name").orderBy("name"));
        const values: number[] = [];
        for (const row of rows) values.push(Number((yield* step.first(db.build.selectFrom("counters").select("value").where("name", "=", row.name)))!.value));
        return values;
      });
      expect(names).to.deep.equal([1, 2]);
    });

    it("gives the smaller and the larger of two values under the engine's names", async () => {
      const row = await db.first(db.build.selectNoFrom((eb) => [db.fn.least(eb.lit(3), eb.lit(7)).as("low"), db.fn.greatest(eb.lit(3), eb.lit(7)).as("high")]));
      expect([Number(row?.low), Number(row?.high)]).to.deep.equal([3, 7]);
    });
  });
}

describe("SqlDatabase on SQLite: prepared statements", () => {
  it("keeps a statement in use prepared while hundreds of one-off statements pass through the bounded cache", async () => {
    const connection = new Database(":memory:");
    connection.exec(CREATE);
    const prepared: string[] = [];
    const db = sqliteDatabase<Schema>({
      get open() {
        return connection.open;
      },
      prepare: (source) => (prepared.push(source), connection.prepare(source)),
      transaction: (fn) => connection.transaction(fn),
    });
    const hot = db.build.selectFrom("counters").select("value").where("name", "=", "hot");
    // More distinct statements than the cache holds (512), the hot one used between each.
    for (let i = 0; i < 700; i++) {
      await db.rows(db.build.selectFrom("counters").select("value").where("name", "in", Array.from({ length: i + 1 }, (_, k) => `n${k}`)));
      await db.rows(hot);
    }
    expect(prepared.filter((source) => source === hot.compile().sql)).to.have.length(1);
    expect(prepared).to.have.length(701);
    connection.close();
  });
});

describe("SqlDatabase on SQLite: a transaction body and other code on the connection", () => {
  it("runs the body start to end before any other callback: a write queued meanwhile lands after the commit, not inside it", async () => {
    const connection = new Database(":memory:");
    connection.exec(CREATE);
    const db = sqliteDatabase<Schema>(connection);
    const seen: string[] = [];
    // Queued to run at the first chance other code gets; inside the transaction it would join it.
    queueMicrotask(() => seen.push(connection.inTransaction ? "inside" : "outside"));
    const transaction = db.transaction(function* () {
      yield* step.changes(db.build.insertInto("counters").values({ name: "a", value: 1 }));
      yield* step.changes(db.build.insertInto("counters").values({ name: "b", value: 1 }));
      return connection.inTransaction;
    });
    expect(await transaction).to.equal(true);
    expect(seen).to.deep.equal(["outside"]);
    connection.close();
  });
});
