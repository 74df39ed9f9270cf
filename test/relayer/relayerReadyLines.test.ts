import { expect } from "chai";
import { RELAYER_READY_WITH_METRICS, relayerReadyLines } from "../../relayer/readyLines";

/** The lines `npm run relayer` prints once serving, as the devnet's supervisor and the benches read them. */
describe("the relayer's ready lines", () => {
  const url = "http://127.0.0.1:8090";
  const metrics = "http://127.0.0.1:9464";

  it("are matched with both URLs when written as the relayer writes them", () => {
    const match = RELAYER_READY_WITH_METRICS.exec(`{"level":40,"msg":"signing with a raw key"}\n${relayerReadyLines(url, metrics)}  signer 0xabc  1 wei\n`);
    expect(match?.[1]).to.equal(url);
    expect(match?.[2]).to.equal(metrics);
  });

  it("are still matched when a log line from another thread lands between them (the race that once hung npm start in CI)", () => {
    const [first, second] = relayerReadyLines(url, metrics).split(/(?<=\n)/);
    const match = RELAYER_READY_WITH_METRICS.exec(`${first}{"level":30,"msg":"relayer listening"}\n${second}`);
    expect(match?.slice(1, 3)).to.deep.equal([url, metrics]);
  });

  it("leave out the metrics line when no metrics port is set, and the pattern waits for it", () => {
    const printed = relayerReadyLines(url, undefined);
    expect(printed).to.equal(`Relayer on ${url}\n`);
    expect(RELAYER_READY_WITH_METRICS.exec(printed)).to.equal(null);
  });
});
