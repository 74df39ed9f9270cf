import { expect } from "chai";
import { generatePrivateKey } from "viem/accounts";
import { createTradingClient, verifyRelayWebhook, type WebhookDeliveriesJson } from "../../sdk";
import { runCli as run, type CliRun } from "../fixtures/cliProcess";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";
import { WebhookReceiver } from "../fixtures/webhookReceiver";

function json(result: CliRun): Record<string, any> {
  try {
    return JSON.parse(result.stdout) as Record<string, any>;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

describe("swap-api onboard webhook and relay deliveries (the command-line tool as a process) against npm start's devnet", function () {
  this.timeout(240_000);
  let devnet: SharedDevnet;
  let receiver: WebhookReceiver;

  before(async function () {
    // npm start in a child process: a compile check, a deployment, the API and the relayer; minutes on loaded cores.
    this.timeout(300_000);
    devnet = await sharedDevnet();
    receiver = new WebhookReceiver((secret, headers, body) => verifyRelayWebhook(secret, headers, body));
    await receiver.start();
  });
  after(async () => {
    await receiver.stop();
  });

  it("sets the webhook (secret printed once, table or JSON), lists a relay's deliveries, refuses a bad URL naming the field, a wrong key and a missing --url/--clear, and clears it", async () => {
    const ownerKey = generatePrivateKey();
    const onboarding = createTradingClient({ apiUrl: devnet.apiUrl });
    const { application, apiKey } = await onboarding.onboard(devnet.wallet(ownerKey), { chainId: 4663, displayName: "CLI Webhooks", slug: `cli-hooks-${Date.now().toString(36)}`, requestedMaxFeeBps: 0 });
    const integratorId = String(application.integrator_id);
    const env = { SWAP_API_URL: devnet.apiUrl, RPC_URL: devnet.rpcUrl, DEPLOYMENTS_DIR: devnet.directory, PRIVATE_KEY: ownerKey, SWAP_API_KEY: apiKey!.api_key };

    // For people: a table with the secret, and the warning that it is shown once.
    const table = await run(["onboard", "webhook", "--integrator-id", integratorId, "--url", receiver.url], env);
    expect(table.code, table.stderr).to.equal(0);
    const [header, rule, row] = table.stdout.trimEnd().split("\n");
    expect(header!.split(/\s+/)).to.deep.equal(["integrator_id", "url", "secret", "signature_scheme"]);
    expect(rule).to.match(/^-+ +-+ +-+ +-+$/);
    const cells = row!.split(/\s+/);
    expect([cells[0], cells[1], cells[3]]).to.deep.equal([integratorId, receiver.url, "standard-webhooks-v1"]);
    expect(cells[2]).to.match(/^whsec_/);
    expect(table.stderr).to.include("shown once");

    // Again with --json: a rotation, whose new secret signs what comes next.
    const rotated = await run(["onboard", "webhook", "--integrator-id", integratorId, "--url", receiver.url, "--json"], env);
    expect(rotated.code, rotated.stderr).to.equal(0);
    const registration = json(rotated);
    expect(registration).to.include({ integrator_id: application.integrator_id, url: receiver.url, signature_scheme: "standard-webhooks-v1" });
    expect(registration.secret).to.match(/^whsec_/).and.not.equal(cells[2]);
    receiver.secret = registration.secret as string;

    const client = createTradingClient({ apiUrl: devnet.apiUrl, apiKey: apiKey!.api_key, publicClient: devnet.publicClient, contracts: { routerRegistry: devnet.manifest.contracts.routerRegistry } });
    const funded = await fundedTaker(devnet, { USDC: 500_000_000n });
    const taker = devnet.wallet(funded.privateKey);
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 100_000_000n, taker: taker.account.address, gasless: true });
    const relay = await client.swapGasless(quote, taker, { intervalMs: 200, timeoutMs: 60_000 });
    client.close();
    expect(relay.status).to.equal("confirmed");
    await receiver.waitFor(() => receiver.statusesOf(relay.relay_id).length === 3, 30_000, "the relay's three events");

    let listed: WebhookDeliveriesJson = { url: null, circuit: null, deliveries: [] };
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const deliveries = await run(["relay", "deliveries", "--json"], env);
      expect(deliveries.code, deliveries.stderr).to.equal(0);
      listed = json(deliveries) as WebhookDeliveriesJson;
      if (listed.deliveries.length === 3 && listed.deliveries.every((delivery) => delivery.state === "delivered")) break;
    }
    expect(listed.url).to.equal(receiver.url);
    expect(listed.deliveries.map((delivery) => [delivery.relay_id, delivery.status, delivery.state])).to.deep.equal(
      ["confirmed", "submitted", "accepted"].map((status) => [relay.relay_id, status, "delivered"]),
    );
    const people = await run(["relay", "deliveries", "--limit", "2"], env);
    expect(people.code, people.stderr).to.equal(0);
    const lines = people.stdout.trimEnd().split("\n");
    expect(lines[0]).to.equal(`webhook: ${receiver.url}`);
    // The endpoint's circuit breaker, closed while deliveries succeed.
    expect(lines[1]).to.equal("circuit: closed (0 failed in a row)");
    expect(lines[2]!.split(/\s+/)).to.deep.equal(["event_id", "relay_id", "status", "state", "attempts", "last_answer", "at"]);
    expect(lines.slice(4).map((line) => line.split(/\s+/).slice(1, 6))).to.deep.equal([
      [relay.relay_id, "confirmed", "delivered", "1", "204"],
      [relay.relay_id, "submitted", "delivered", "1", "204"],
    ]);

    // A URL the API refuses: exit 3, the API's code and the field at fault.
    const badUrl = await run(["onboard", "webhook", "--integrator-id", integratorId, "--url", "http://hooks.example.com/relays", "--json"], env);
    expect(badUrl.code, badUrl.stderr).to.equal(3);
    expect(json(badUrl).error).to.include({ name: "WebhookUrlError", status: 400, code: "webhook_url_not_https", field: "url" });
    expect(badUrl.stderr).to.match(/url: must be https/).and.match(/absolute https URL of a public host/);
    // A wrong API key: exit 3, 401 api_key_invalid, with what to check.
    const wrongKey = await run(["relay", "deliveries", "--json"], { ...env, SWAP_API_KEY: `${apiKey!.api_key.slice(0, -1)}${apiKey!.api_key.endsWith("a") ? "b" : "a"}` });
    expect(wrongKey.code, wrongKey.stderr).to.equal(3);
    expect(json(wrongKey).error).to.include({ status: 401, code: "api_key_invalid" });
    expect(wrongKey.stderr).to.include("SWAP_API_KEY");
    // Neither --url nor --clear (or both): a usage error, before anything is signed.
    for (const args of [[], ["--url", receiver.url, "--clear"]]) {
      const usage = await run(["onboard", "webhook", "--integrator-id", integratorId, ...args], env);
      expect(usage.code, usage.stderr).to.equal(2);
      expect(usage.stderr).to.include("exactly one of --url <url> and --clear");
    }

    const cleared = await run(["onboard", "webhook", "--integrator-id", integratorId, "--clear", "--json"], env);
    expect(cleared.code, cleared.stderr).to.equal(0);
    expect(json(cleared)).to.include({ url: null, secret: null });
    const none = await run(["relay", "deliveries"], env);
    expect(none.stdout.split("\n")[0]).to.equal("webhook: none");
    expect(none.stderr).to.include("no webhook is set");
  });
});
