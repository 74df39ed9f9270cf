import { expect } from "chai";
import { quoteParameters } from "../../cli/commands/quote";
import type { CliConfig } from "../../cli/cliConfig";
import { CliError } from "../../cli/exitCodes";

const config: CliConfig = {
  apiUrl: "http://127.0.0.1:1",
  apiKey: undefined,
  rpcUrl: "http://127.0.0.1:1",
  privateKey: undefined,
  chainId: 4663,
  manifest: undefined,
  registry: undefined,
  allowanceHolder: undefined,
  feeRecipient: undefined,
  json: false,
  retries: 0,
  timeoutSeconds: undefined,
};
const taker = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";

describe("swap-api quote --max-hops", () => {
  it("passes 1-16 to the client as maxHops and refuses anything else as a usage error", () => {
    expect(quoteParameters(config, "ETH", "0x0000000000000000000000000000000000000001", "1", { maxHops: "2" }, taker).maxHops).to.equal(2);
    expect(quoteParameters(config, "ETH", "0x0000000000000000000000000000000000000001", "1", {}, taker).maxHops).to.equal(undefined);
    for (const bad of ["0", "17", "1.5", "x"]) {
      expect(() => quoteParameters(config, "ETH", "0x0000000000000000000000000000000000000001", "1", { maxHops: bad }, taker), bad).to.throw(CliError, /--max-hops/);
    }
  });
});
