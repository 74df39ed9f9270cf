/**
 * One set of queries for both engines: a store builds each query once with Kysely, and a
 * `SqlDatabase` runs it on SQLite (better-sqlite3) or PostgreSQL (a pool from servicePools.ts).
 *
 * Kysely only builds and compiles here; it never executes. Its own SqliteDialect runs better-sqlite3
 * behind promises, so a transaction there spans awaits on the one connection, and any other code that
 * touches the same connection in between (every hand-written store does, synchronously) would run
 * inside it. The SQLite stores' rule is that a transaction runs start to end without yielding
 * (`transaction(...).immediate()`). So a transaction is written once as a generator of statements:
 * on SQLite the generator is driven synchronously inside better-sqlite3's immediate transaction,
 * exactly as before; on PostgreSQL it is driven with awaits inside BEGIN/COMMIT on one pooled client.
 *
 * Raw SQL stays only where one engine has a primitive the other lacks; those are named in
 * `EngineCapabilities` (and the few scalar functions whose names differ are in `EngineFunctions`),
 * so a query says which it relies on. Like postgresPool.ts, this is not exported from `sdk/index.ts`.
 */
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
  type Expression,
  type RawBuilder,
} from "kysely";
import { isPostgresConstraintError, withTransaction, type PostgresClient, type PostgresPool } from "./postgresPool";

export type SqlEngine = "sqlite" | "postgres";

/** The primitives one engine has and the other lacks; a store branches on these, never on the engine's name. */
export type EngineCapabilities = {
  /**
   * Row and table locks (`FOR UPDATE`, `FOR UPDATE SKIP LOCKED` claims, `LOCK TABLE`). PostgreSQL only:
   * a SQLite write transaction is immediate and holds the whole database, so what a lock orders is ordered already.
   */
  locks: boolean;
  /** `LISTEN/NOTIFY` between processes (postgresListener.ts). PostgreSQL only: SQLite has one writer process. */
  notifications: boolean;
  /** Session advisory locks (`pg_advisory_lock`, the migrations'). PostgreSQL only: SQLite's lock is the file's. */
  advisoryLocks: boolean;
  /** An exact decimal type (`numeric`). PostgreSQL only: SQLite sums beyond 64 bits as floats (`TOTAL`). */
  exactDecimals: boolean;
};

/** A statement's SQL, and where each of its parameters comes from: a value by name, or a constant of the query. */
type ParameterSlots = { sql: string; slots: readonly (string | { constant: unknown })[] };

/** The statement with `values` in its named slots (an absent name binds null). */
function bindSlots<R>({ sql, slots }: ParameterSlots, values: Record<string, unknown>): BoundQuery<R> {
  return { sql, parameters: slots.map((slot) => (typeof slot === "string" ? (values[slot] ?? null) : slot.constant)) };
}

/** SQL text's `@name` parameters as `placeholder(index)`: one slot per occurrence (SQLite's `?`), or per distinct name where `reuse` (`$n`). */
function namedSlots(text: string, placeholder: (index: number) => string, reuse: boolean): ParameterSlots {
  const names: string[] = [];
  const sql = text.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    let index = reuse ? names.indexOf(name) : -1;
    if (index < 0) index = names.push(name) - 1;
    return placeholder(index);
  });
  return { sql, slots: names };
}

/** `named()` on one engine: each text is parsed once. */
function namedStatements(placeholder: (index: number) => string, reuse: boolean) {
  const parsed = new Map<string, ParameterSlots>();
  return <R>(text: string, params: Record<string, unknown>): BoundQuery<R> => {
    let slots = parsed.get(text);
    if (slots === undefined) parsed.set(text, (slots = namedSlots(text, placeholder, reuse)));
    return bindSlots<R>(slots, params);
  };
}

/** What a template's builder puts where a parameter goes: a string no caller's value starts with. */
const PARAMETER = "\u0000template-parameter:";

/** A built query compiled once, bound to new values on each call (`template`). */
export type Template<Values, R> = (values: Values) => BoundQuery<R>;

/**
 * A query of fixed shape built and compiled once (`build` with `param(name)` wherever a value goes),
 * then bound to each call's values: for statements on hot paths, where Kysely's build and compile
 * would otherwise run on every call. Build it with the engine's `SqlDatabase.build`, so it compiles in
 * that dialect. Not for shapes that vary with the values (an `IN` list, optional filters).
 */
export function template<Values extends Record<string, unknown>, R>(build: (param: <Name extends keyof Values & string>(name: Name) => Values[Name]) => Query<R>): Template<Values, R> {
  const query = compiled(build((name) => `${PARAMETER}${name}` as never));
  const slots = query.parameters.map((value) => (typeof value === "string" && value.startsWith(PARAMETER) ? value.slice(PARAMETER.length) : { constant: value }));
  return (values) => bindSlots<R>({ sql: query.sql, slots }, values);
}

/** Scalar functions both engines have under different names. */
export type EngineFunctions = {
  /** The smaller of two values (SQLite's two-argument `MIN`, PostgreSQL's `LEAST`). */
  least<T>(a: Expression<T>, b: Expression<T>): RawBuilder<T>;
  /** The larger of two values (SQLite's two-argument `MAX`, PostgreSQL's `GREATEST`). */
  greatest<T>(a: Expression<T>, b: Expression<T>): RawBuilder<T>;
  /**
   * The order a table's rows were inserted in: SQLite's `rowid` (a VACUUM renumbers it in the same
   * order), or on PostgreSQL the table's identity column, named by `identity`.
   */
  insertionOrder(identity: string): RawBuilder<number>;
};

/** One statement of a transaction, and what the transaction reads back from it. */
/** `first` reads one row (undefined when none): SQLite then steps the statement once instead of collecting every row. */
export type Statement = { query: BoundQuery<unknown>; read: "rows" | "first" | "changes" };
/** A transaction's body: yields its statements (through `step`) and returns its result. */
export type TransactionBody<T> = Generator<Statement, T, unknown>;

/** A built query, or raw SQL compiled for the engine (`sql\`...\`.compile(db.build)`), where one engine has a primitive the other lacks. */
export type Query<R> = Compilable<R> | BoundQuery<R>;
const compiled = <R>(query: Query<R>): BoundQuery<R> => ("compile" in query ? query.compile() : query);

/**
 * What a statement runs: its SQL in the engine's dialect and its parameters in order (a Kysely
 * `CompiledQuery` is one; a template's or `named()`'s binding builds only this). `R` is the row type.
 */
export type BoundQuery<R> = { readonly sql: string; readonly parameters: readonly unknown[]; readonly row?: R };

/** The statements a transaction body yields: `const rows = yield* step.rows(query)`. */
export const step = {
  *rows<R>(query: Query<R>): Generator<Statement, R[], unknown> {
    return (yield { query: compiled(query), read: "rows" }) as R[];
  },
  *first<R>(query: Query<R>): Generator<Statement, R | undefined, unknown> {
    return (yield { query: compiled(query), read: "first" }) as R | undefined;
  },
  /** Rows inserted, updated or deleted. */
  *changes(query: Query<unknown>): Generator<Statement, number, unknown> {
    return (yield { query: compiled(query), read: "changes" }) as number;
  },
};

export interface SqlDatabase<Schema> {
  readonly engine: SqlEngine;
  readonly capabilities: EngineCapabilities;
  readonly fn: EngineFunctions;
  /** Builds queries in the engine's dialect; pass them to `rows`, `first`, `changes` or a transaction's `step`. */
  readonly build: Kysely<Schema>;
  rows<R>(query: Query<R>): Promise<R[]>;
  first<R>(query: Query<R>): Promise<R | undefined>;
  /** Runs a write; resolves to the rows it inserted, updated or deleted. */
  changes(query: Query<unknown>): Promise<number>;
  /**
   * Runs `body` in one write transaction: committed if it returns, rolled back if it throws. A body must
   * not catch a failed step and go on: SQLite would, but PostgreSQL has aborted the transaction by then.
   */
  transaction<T>(body: () => TransactionBody<T>): Promise<T>;
  /**
   * Runs `body`'s statements one after another outside a transaction: for reads that need not see one
   * moment (a relay and then its transactions, say). On SQLite they still run without yielding.
   */
  read<T>(body: () => TransactionBody<T>): Promise<T>;
  /**
   * `query` locking the rows it reads until the transaction ends (`FOR UPDATE`) where the engine has row
   * locks (`capabilities.locks`); unchanged on SQLite, whose immediate transaction already holds the database.
   * `skipLocked` makes it a claim: rows another transaction holds are passed over (`SKIP LOCKED`).
   */
  lockRows<Q extends { forUpdate(): Q; skipLocked(): Q }>(query: Q, options?: { skipLocked: boolean }): Q;
  /**
   * A statement written once as text with `@name` parameters, in SQL both engines read alike,
   * bound in the engine's style (`?` on SQLite, `$n` on PostgreSQL); a name absent from `params` binds null.
   */
  named<R = unknown>(text: string, params: Record<string, unknown>): BoundQuery<R>;
  /** True for a unique, foreign-key or check violation, which retrying cannot fix. */
  isConstraintError(error: unknown): boolean;
  /** False once the connection or pool is closed (a buffered write then has nowhere to go). */
  isOpen(): boolean;
}

/** The few methods of a better-sqlite3 database this uses, so the SDK does not depend on it. */
export type SqliteConnection = {
  readonly open: boolean;
  prepare(source: string): SqlitePrepared;
  transaction<T>(fn: () => T): { immediate(): T };
};
type SqlitePrepared = { reader: boolean; all(...params: unknown[]): unknown[]; get(...params: unknown[]): unknown; run(...params: unknown[]): { changes: number } };

/** Kysely that compiles for one dialect and cannot run anything itself. */
function builder<Schema>(engine: SqlEngine): Kysely<Schema> {
  const sqlite = engine === "sqlite";
  return new Kysely<Schema>({
    dialect: {
      createAdapter: () => (sqlite ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (sqlite ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
      createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
  });
}

function functions(least: string, greatest: string, rowOrder: (identity: string) => string): EngineFunctions {
  return {
    least: (a, b) => sql`${sql.raw(least)}(${a}, ${b})`,
    greatest: (a, b) => sql`${sql.raw(greatest)}(${a}, ${b})`,
    insertionOrder: (identity) => sql.ref(rowOrder(identity)),
  };
}

/** A statement's result, or the error it failed with. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function attempt(execute: (statement: Statement) => Promise<unknown>, statement: Statement): Promise<Outcome>;
function attempt(execute: (statement: Statement) => unknown, statement: Statement): Outcome;
function attempt(execute: (statement: Statement) => unknown, statement: Statement): Outcome | Promise<Outcome> {
  try {
    const value = execute(statement);
    return value instanceof Promise ? value.then((result: unknown) => ({ ok: true, value: result }), (error: unknown) => ({ ok: false, error })) : { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Hands a statement's result to the body, or throws its error into the body (which may catch it), and returns what the body does next. */
function resume<T>(body: TransactionBody<T>, outcome: Outcome): IteratorResult<Statement, T> {
  return outcome.ok ? body.next(outcome.value) : body.throw(outcome.error);
}

/**
 * Statements seen before are prepared once (better-sqlite3 parses SQL at prepare); a bound keeps
 * list-shaped ones in check, evicting the least recently used so the hot statements stay prepared.
 */
const STATEMENT_CACHE_LIMIT = 512;

/** The database on one better-sqlite3 connection; every statement runs synchronously, as the hand-written stores' do. */
export function sqliteDatabase<Schema>(db: SqliteConnection): SqlDatabase<Schema> {
  const prepared = new Map<string, SqlitePrepared>();
  const execute = ({ query, read }: Statement): unknown => {
    let statement = prepared.get(query.sql);
    if (statement === undefined) {
      if (prepared.size >= STATEMENT_CACHE_LIMIT) prepared.delete(prepared.keys().next().value!);
      statement = db.prepare(query.sql);
    } else {
      // A Map iterates in insertion order: re-inserting a hit keeps the first key the least recently used.
      prepared.delete(query.sql);
    }
    prepared.set(query.sql, statement);
    if (read === "changes") return statement.run(...query.parameters).changes;
    if (!statement.reader) return (statement.run(...query.parameters), read === "first" ? undefined : []);
    return read === "first" ? statement.get(...query.parameters) : statement.all(...query.parameters);
  };
  const runNow = <T>(body: TransactionBody<T>): T => {
    let next = body.next();
    while (next.done !== true) next = resume(body, attempt(execute, next.value));
    return next.value;
  };
  return {
    engine: "sqlite",
    capabilities: { locks: false, notifications: false, advisoryLocks: false, exactDecimals: false },
    fn: functions("min", "max", () => "rowid"),
    build: builder<Schema>("sqlite"),
    rows: async (query) => runNow(step.rows(query)),
    first: async (query) => runNow(step.first(query)),
    changes: async (query) => runNow(step.changes(query)),
    transaction: async (body) => db.transaction(() => runNow(body())).immediate(),
    read: async (body) => runNow(body()),
    lockRows: (query) => query,
    named: namedStatements(() => "?", false),
    isConstraintError: (error) => {
      const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
      return typeof code === "string" && code.startsWith("SQLITE_CONSTRAINT");
    },
    isOpen: () => db.open,
  };
}

/** The database on a PostgreSQL pool (open it with servicePools.ts); a transaction holds one client. */
export function postgresDatabase<Schema>(pool: PostgresPool): SqlDatabase<Schema> {
  const execute = async (client: Pick<PostgresClient, "query">, { query, read }: Statement): Promise<unknown> => {
    const result = await client.query(query.sql, query.parameters as unknown[]);
    if (read === "changes") return result.rowCount ?? 0;
    return read === "first" ? result.rows[0] : result.rows;
  };
  const run = async <T>(client: Pick<PostgresClient, "query">, body: TransactionBody<T>): Promise<T> => {
    let next = body.next();
    while (next.done !== true) next = resume(body, await attempt((statement) => execute(client, statement), next.value));
    return next.value;
  };
  return {
    engine: "postgres",
    capabilities: { locks: true, notifications: true, advisoryLocks: true, exactDecimals: true },
    fn: functions("least", "greatest", (identity) => identity),
    build: builder<Schema>("postgres"),
    rows: (query) => run(pool, step.rows(query)),
    first: (query) => run(pool, step.first(query)),
    changes: (query) => run(pool, step.changes(query)),
    transaction: (body) => withTransaction(pool, (client) => run(client, body())),
    read: (body) => run(pool, body()),
    lockRows: (query, options) => (options?.skipLocked === true ? query.forUpdate().skipLocked() : query.forUpdate()),
    named: namedStatements((index) => `$${index + 1}`, true),
    isConstraintError: isPostgresConstraintError,
    isOpen: () => !pool.ended,
  };
}
