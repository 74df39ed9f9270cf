import { expect } from "chai";
import { canMoveRelay, finalRelayStatuses, isFinalRelayStatus, relayStatuses, relayTransitions } from "../../sdk";

describe("the relay state machine", () => {
  it("final statuses have no way out, and every other status can end", () => {
    for (const status of relayStatuses) {
      if (isFinalRelayStatus(status)) expect(relayTransitions[status], status).to.deep.equal([]);
      else expect(relayTransitions[status].some((to) => finalRelayStatuses.has(to)), status).to.equal(true);
    }
  });

  it("allows exactly the documented moves", () => {
    const allowed = relayStatuses.flatMap((from) => relayStatuses.filter((to) => canMoveRelay(from, to)).map((to) => `${from}→${to}`));
    expect(allowed).to.deep.equal([
      "accepted→submitted",
      "accepted→confirmed",
      "accepted→expired",
      "accepted→rejected",
      "accepted→cancelled",
      "submitted→confirmed",
      "submitted→failed",
      "submitted→expired",
      "submitted→cancelled",
    ]);
  });

  it("every status is reachable from accepted", () => {
    const reached = new Set(["accepted"]);
    for (let changed = true; changed; ) {
      changed = false;
      for (const from of [...reached]) for (const to of relayTransitions[from as keyof typeof relayTransitions]) if (!reached.has(to)) changed = reached.add(to) !== undefined;
    }
    expect([...reached].sort()).to.deep.equal([...relayStatuses].sort());
  });
});
