/**
 * One list of schema migrations per service, for both engines: each step carries its SQL for SQLite
 * and for PostgreSQL side by side (`sql` when the text is the same on both), so a schema change is one
 * entry. Each engine applies the steps that have SQL for it, in order, each once
 * (`applySqliteMigrations`, `applyPostgresMigrations`).
 *
 * Versions: SQLite records `version`. PostgreSQL records `postgresVersion`, which defaults to `version`:
 * the steps from before the two lists were joined keep the number PostgreSQL already recorded for
 * them (its own, shorter history), so databases of either engine migrate forward in place. Every
 * later step uses one number on both, larger than any of those.
 */
export type SchemaMigration = {
  version: number;
  name: string;
  /** The number PostgreSQL records for this step, when it differs from `version` (steps from before the lists were joined). */
  postgresVersion?: number;
  /**
   * SQLite: a rebuild of a table others reference; foreign keys are switched off around its
   * transaction (the procedure SQLite documents for ALTER TABLE), and checked before it commits.
   */
  rebuildsReferencedTable?: boolean;
} & (
  | { /** The same SQL on both engines. */ sql: string; sqlite?: never; postgres?: never }
  | { sql?: never; /** SQLite's SQL; absent: no step on SQLite. */ sqlite?: string; /** PostgreSQL's SQL; absent: no step on PostgreSQL. */ postgres?: string }
);

export type SqlEngineName = "sqlite" | "postgres";

/** One engine's step: what its runner applies and records. */
export type EngineMigration = { version: number; name: string; sql: string; rebuildsReferencedTable: boolean };

/**
 * The steps `engine` applies, with the versions it records. Throws on a list whose versions do not
 * increase on either engine (a step added out of order would be skipped by databases past it).
 */
export function engineMigrations(list: readonly SchemaMigration[], engine: SqlEngineName): EngineMigration[] {
  const steps: EngineMigration[] = [];
  for (const step of list) {
    const sql = step.sql ?? (engine === "sqlite" ? step.sqlite : step.postgres);
    if (sql === undefined) continue;
    const version = engine === "sqlite" ? step.version : (step.postgresVersion ?? step.version);
    const previous = steps.at(-1)?.version ?? 0;
    if (version <= previous) throw new Error(`migration "${step.name}" has ${engine} version ${version}, not above the step before it (${previous})`);
    steps.push({ version, name: step.name, sql, rebuildsReferencedTable: engine === "sqlite" && step.rebuildsReferencedTable === true });
  }
  return steps;
}
