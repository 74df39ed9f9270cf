import { expect } from "chai";
import { apiMigrations } from "../../api/store/apiMigrations";
import { relayMigrations } from "../../relayer/store/relayMigrations";
import { engineMigrations, type SchemaMigration } from "../../sdk/storage/schemaMigrations";

/**
 * One list per service for both engines: what each engine applies and records must be what its
 * databases recorded before the lists were joined, or a database in use would apply a step twice
 * or skip one.
 */
describe("schema migrations: one list per service, for both engines", () => {
  const versions = (list: readonly SchemaMigration[], engine: "sqlite" | "postgres") => engineMigrations(list, engine).map((step) => step.version);

  it("keeps the versions each engine recorded before the lists were joined (the API: SQLite 1-9, PostgreSQL 1-5; the relayer: SQLite 1-12, PostgreSQL 1-10)", () => {
    expect(versions(apiMigrations, "sqlite").slice(0, 9)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(versions(apiMigrations, "postgres").slice(0, 5)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(versions(relayMigrations, "sqlite").slice(0, 12)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(versions(relayMigrations, "postgres").slice(0, 10)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("gives every step of both lists SQL for at least one engine, and a later step one number on both engines", () => {
    for (const list of [apiMigrations, relayMigrations]) {
      for (const step of list) expect(step.sql ?? step.sqlite ?? step.postgres, step.name).to.be.a("string");
      const joined = list.filter((step) => step.postgresVersion === undefined && (step.sql !== undefined || step.postgres !== undefined));
      // Before the join, every PostgreSQL step names its own version; after it, none does.
      for (const step of joined) expect(step.version, step.name).to.be.greaterThan(Math.max(...list.map((other) => other.postgresVersion ?? 0)));
    }
  });

  it("refuses a list whose versions do not increase on an engine, naming the step", () => {
    const list: SchemaMigration[] = [
      { version: 1, name: "first", sql: "SELECT 1" },
      { version: 2, name: "renumbered", postgresVersion: 1, postgres: "SELECT 2" },
    ];
    expect(versions(list, "sqlite")).to.deep.equal([1]);
    expect(() => engineMigrations(list, "postgres")).to.throw(/"renumbered" has postgres version 1, not above the step before it \(1\)/);
  });

  it("gives SQLite's table rebuild flag to SQLite only, and a shared text to both engines", () => {
    const list: SchemaMigration[] = [{ version: 3, name: "rebuild", rebuildsReferencedTable: true, sqlite: "A", postgres: "B" }, { version: 4, name: "same", sql: "C" }];
    expect(engineMigrations(list, "sqlite")).to.deep.equal([
      { version: 3, name: "rebuild", sql: "A", rebuildsReferencedTable: true },
      { version: 4, name: "same", sql: "C", rebuildsReferencedTable: false },
    ]);
    expect(engineMigrations(list, "postgres")).to.deep.equal([
      { version: 3, name: "rebuild", sql: "B", rebuildsReferencedTable: false },
      { version: 4, name: "same", sql: "C", rebuildsReferencedTable: false },
    ]);
  });
});
