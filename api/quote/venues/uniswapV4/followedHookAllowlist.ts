import { statSync } from "node:fs";
import { allowlistedHookSet, readV4HookAllowlist } from "../../../../sdk/chain/v4HookAllowlist";

/** What the market asks for the operator's allowlisted V4 hooks (lowercase addresses). */
export type V4HookAllowlistSource = Readonly<{ hooks(): ReadonlySet<string> }>;

const NONE: ReadonlySet<string> = new Set();

/**
 * The allowlist file (sdk/chain/v4HookAllowlist.ts) as it stands: its modification time is checked on
 * each call (a stat, no read) and the file read again only when it changed, so an operator's
 * `npm run venues -- allow-hook` takes effect at the next quoted block without a restart. A file that
 * does not parse keeps the last good set and is reported once per change through `onError`.
 */
export class FollowedV4HookAllowlist implements V4HookAllowlistSource {
  #stamp: number | undefined;
  #hooks: ReadonlySet<string> = NONE;

  constructor(
    private readonly path: string,
    private readonly chainId: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  hooks(): ReadonlySet<string> {
    let stamp: number;
    try {
      stamp = statSync(this.path).mtimeMs;
    } catch {
      stamp = -1;
    }
    if (stamp === this.#stamp) return this.#hooks;
    this.#stamp = stamp;
    try {
      this.#hooks = stamp === -1 ? NONE : allowlistedHookSet(readV4HookAllowlist(this.path, this.chainId));
    } catch (error) {
      this.onError(error);
    }
    return this.#hooks;
  }
}
