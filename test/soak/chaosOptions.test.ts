import { expect } from "chai";
import fc from "fast-check";
import { DEFAULT_NODE_RESTARTS, MAX_NODE_RESTARTS, parseSoakCommandLine, restartAtMs } from "../../scripts/soak/chaosOptions";

describe("npm run soak's command line: --chaos and its --restarts", () => {
  it("defaults to one node restart, the documented default, with or without --chaos", () => {
    expect(DEFAULT_NODE_RESTARTS).to.equal(1);
    expect(parseSoakCommandLine([])).to.deep.equal({ chaos: false, restarts: 1 });
    expect(parseSoakCommandLine(["--chaos"])).to.deep.equal({ chaos: true, restarts: 1 });
  });

  it("takes --restarts N from 1 to the maximum, in either form", () => {
    expect(parseSoakCommandLine(["--chaos", "--restarts", "3"])).to.deep.equal({ chaos: true, restarts: 3 });
    expect(parseSoakCommandLine(["--restarts=2", "--chaos"])).to.deep.equal({ chaos: true, restarts: 2 });
    expect(parseSoakCommandLine(["--chaos", "--restarts", String(MAX_NODE_RESTARTS)]).restarts).to.equal(MAX_NODE_RESTARTS);
  });

  it("refuses a count that is not a whole number in range, --restarts without --chaos, and an unknown flag, saying what is accepted", () => {
    for (const bad of ["0", String(MAX_NODE_RESTARTS + 1), "1.5", "-1", "two", ""]) {
      expect(() => parseSoakCommandLine(["--chaos", `--restarts=${bad}`]), bad).to.throw(`--restarts must be a whole number from 1 to ${MAX_NODE_RESTARTS} (default 1)`);
    }
    expect(() => parseSoakCommandLine(["--restarts", "2"])).to.throw(/applies to the chaos run only/);
    expect(() => parseSoakCommandLine(["--chaos", "--restart", "2"])).to.throw(/usage: npm run soak/);
  });

  it("spreads the restarts evenly inside the load, in order and never at its start or end; one restart is mid-load (5 s of 10 s)", () => {
    expect(restartAtMs(0, 1, 10_000)).to.equal(5_000);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_NODE_RESTARTS }), fc.integer({ min: 1_000, max: 600_000 }), (restarts, loadMs) => {
        const times = Array.from({ length: restarts }, (_, index) => restartAtMs(index, restarts, loadMs));
        expect(times[0]).to.be.greaterThan(0);
        expect(times.at(-1)).to.be.lessThan(loadMs);
        for (let index = 1; index < times.length; index++) expect(times[index]).to.be.greaterThan(times[index - 1]!);
      }),
    );
  });
});
