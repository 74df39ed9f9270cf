import { expect } from "chai";
import hre from "hardhat";
import pino from "pino";
import { parseEther, toHex } from "viem";
import type { Signer } from "../../relayer/broadcast/signerPool";
import { gaslessSuite, RELAYER_TOKEN, startGaslessStack } from "../fixtures/gaslessStack";
import { until } from "../fixtures/waitUntil";


describe("a signer below the minimum balance", function () {
  this.timeout(120_000);
  const suite = gaslessSuite();

  it("takes no new relays, degrades /ready, sets its metric and is logged at warn once per drop (not at every check), and comes back when funded", async () => {
    const lines: { msg: string; level: number; signer?: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; level: number }) });
    // Two signers with a floor of 5 ETH: the first is brought below it, the second stays above.
    suite.stack = await startGaslessStack(suite.f, { signers: 2, relayerLogger: logger, relayerEnv: { RELAYER_MIN_SIGNER_BALANCE_ETH: "5" } });
    const { relayer } = suite.stack;
    const [low, rich] = relayer!.context.pool.signers as Signer[];
    const setBalance = (wei: bigint) => hre.network.provider.request({ method: "hardhat_setBalance", params: [low!.address, toHex(wei)] });
    const metrics = async () => (await fetch(`${relayer!.metricsUrl}/metrics`)).text();

    await setBalance(parseEther("1"));
    await until(() => !low!.funded, "the upkeep noticing the drop");
    // Several more checks see it below the floor (each one reads the new balance): still one warn.
    for (const eth of ["0.9", "0.8", "0.7"]) {
      await setBalance(parseEther(eth));
      await until(() => low!.balance === parseEther(eth), `a check reading ${eth} ETH`);
    }
    const warns = lines.filter((line) => line.msg.startsWith("signer balance below the floor"));
    expect(warns).to.have.length(1);
    expect(warns[0]).to.deep.include({ level: 40, signer: low!.address });
    expect(await metrics()).to.include(`relayer_signer_below_min_balance{signer="${low!.address}"} 1`);
    expect(await metrics()).to.include(`relayer_signer_below_min_balance{signer="${rich!.address}"} 0`);
    for (let index = 0; index < 4; index++) expect(relayer!.context.pool.tryLease()).to.equal(rich);

    const ready = await fetch(`${relayer!.url}/ready`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
    expect(ready.status).to.equal(200);
    const body = (await ready.json()) as { degraded?: { signers_without_work: string[] }; signers: { address: string; funded: boolean }[] };
    expect(body.degraded?.signers_without_work).to.deep.equal([low!.address]);
    expect(body.signers.find((signer) => signer.address === low!.address)?.funded).to.equal(false);
    // /ready probes log nothing of their own: the upkeep's one warn is the record.
    expect(lines.filter((line) => line.msg.startsWith("signer balance below the floor"))).to.have.length(1);

    await setBalance(parseEther("6"));
    await until(() => low!.funded, "the upkeep noticing the top-up");
    expect(lines.filter((line) => line.msg.startsWith("signer balance back above the floor"))).to.have.length(1);
    expect(await metrics()).to.include(`relayer_signer_below_min_balance{signer="${low!.address}"} 0`);
    const after = (await (await fetch(`${relayer!.url}/ready`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } })).json()) as { degraded?: unknown };
    expect(after.degraded).to.equal(undefined);
  });

  it("with every signer below it, /ready is 503 and says so", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1, relayerEnv: { RELAYER_MIN_SIGNER_BALANCE_ETH: "100000000" } });
    const [only] = suite.stack.relayer!.context.pool.signers as Signer[];
    await until(() => !only!.funded, "the upkeep noticing the balance");
    const ready = await fetch(`${suite.stack.relayer!.url}/ready`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
    expect(ready.status).to.equal(503);
    expect(((await ready.json()) as { checks: { signers: string } }).checks.signers).to.match(/no signer above the floor/);
    expect(suite.stack.relayer!.context.pool.tryLease()).to.equal(undefined);
  });
});
