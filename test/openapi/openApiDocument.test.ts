import { expect } from "chai";
import { apiRoutes } from "../../api/createApp";
import { buildOpenApiDocument } from "../../api/openapi/openApiDocument";
import { quoteQuerySchema } from "../../api/quote/admission/quoteQuery";
import { gaslessSubmitBodySchema } from "../../api/routes/postGaslessSubmit";
import { createTradingClient, type FetchFunction } from "../../sdk";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";
import { DocumentValidator } from "./documentValidator";

type OpenApiValidator = { validate(document: unknown): Promise<{ valid: boolean; errors?: unknown }> };

/** The validator package is ESM-only; a real dynamic import (TypeScript would turn `import()` into require). */
const importEsm = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<{ Validator: new () => OpenApiValidator }>;

describe("OpenAPI document (GET /openapi.json)", function () {
  this.timeout(120_000);

  it("is a valid OpenAPI 3.1 document", async () => {
    const { Validator } = await importEsm("@seriousme/openapi-schema-validator");
    const result = await new Validator().validate(buildOpenApiDocument());
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it("documents every route the API serves, with the security scheme on trading routes", () => {
    const document = buildOpenApiDocument() as { paths: Record<string, Record<string, { security?: unknown[] }>>; components: { securitySchemes: Record<string, unknown> } };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`));
    const served = apiRoutes.filter((route) => !route.path.startsWith("/docs")).map((route) => `${route.method} ${route.path.replace(/:([a-z_]+)/g, "{$1}")}`);
    expect(documented.sort()).to.deep.equal(served.sort());
    expect(document.components.securitySchemes).to.have.property("apiKey");
    for (const path of ["/quote", "/price", "/gasless/submit", "/gasless/status/{relay_id}", "/gasless/cancel/{relay_id}"]) {
      const [operation] = Object.values(document.paths[path]!);
      expect(operation!.security, path).to.deep.equal([{ apiKey: [] }]);
    }
  });

  it("takes its request schemas from the zod schemas that validate requests", () => {
    const document = buildOpenApiDocument() as any;
    const parameters = (document.paths["/quote"].get.parameters as { name: string }[]).map((parameter) => parameter.name);
    expect(parameters.sort()).to.deep.equal(Object.keys(quoteQuerySchema.shape).sort());
    const priceParameters = (document.paths["/price"].get.parameters as { name: string }[]).map((parameter) => parameter.name);
    expect(priceParameters.sort(), "GET /price takes GET /quote's parameters").to.deep.equal(parameters);
    const submit = document.paths["/gasless/submit"].post.requestBody.content["application/json"].schema;
    expect(Object.keys(submit.properties).sort()).to.deep.equal(Object.keys(gaslessSubmitBodySchema.shape).sort());
    expect(submit.additionalProperties).to.equal(false);
  });

  it("describes exact-output quotes: the buy_amount parameter, and max_sell_amount in the quote and price responses", () => {
    const document = buildOpenApiDocument() as any;
    const buyAmount = (document.paths["/quote"].get.parameters as { name: string; description: string }[]).find((parameter) => parameter.name === "buy_amount");
    expect(buyAmount?.description).to.include("max_sell_amount").and.include("min_buy_amount = buy_amount");
    for (const name of ["Quote", "Price"]) {
      const schema = document.components.schemas[name];
      expect(schema?.properties?.max_sell_amount?.description, name).to.include("exact-output");
      expect(schema.required ?? [], name).to.not.include("max_sell_amount");
    }
  });

  it("documents the route statistics at the top level of quote and price responses, as the live service serves them, and keeps route_stats", () => {
    const document = buildOpenApiDocument() as any;
    for (const name of ["Quote", "Price"]) {
      const properties = document.components.schemas[name].properties;
      for (const field of ["candidate_paths", "successful_routes", "failed_routes"]) expect(properties[field]?.type, `${name}.${field}`).to.equal("integer");
      expect(properties.route_stats?.properties, `${name}.route_stats`).to.have.keys("candidate_paths", "successful_routes", "failed_routes", "candidates_by_source");
    }
  });

  it("documents venues: excluded_sources on /quote and /price, and each route hop's source, leg name and gas", () => {
    const document = buildOpenApiDocument() as any;
    for (const path of ["/quote", "/price"]) {
      const parameter = (document.paths[path].get.parameters as { name: string; description: string; required?: boolean }[]).find((entry) => entry.name === "excluded_sources");
      expect(parameter?.description, path).to.include("unknown name is a 400");
      expect(parameter?.required ?? false, path).to.equal(false);
    }
    for (const name of ["Quote", "Price"]) {
      const route = document.components.schemas[name].properties.route.properties;
      const hop = route.hops.items;
      expect(hop.required, `${name} hop`).to.include.members(["source", "leg", "gas"]);
      expect(hop.properties.leg.description, `${name} hop leg`).to.include("<venue>:chain-<id>:<pool>:<fee>");
      expect(route.legs.items.required, `${name} leg`).to.include("gas");
    }
  });

  it("catches a response that does not match", () => {
    const validator = new DocumentValidator();
    expect(() => validator.check("GET", "/tokens/supported-tokens", 200, { schema_version: 1, chain_id: 4663 })).to.throw(/does not match/);
    expect(() => validator.check("GET", "/quote?x=1", 400, { error: "bad" })).to.throw(/code/);
    expect(() => validator.check("GET", "/tokens/supported-tokens", 304, { unexpected: true })).to.throw(/no body/);
    validator.check("GET", "/health", 200, { status: "ok" });
  });

  describe("against npm start's devnet: every operation's responses match the document", () => {
    let devnet: SharedDevnet;
    const validator = new DocumentValidator();
    /** Real fetch that checks every response against the document. */
    const validating: FetchFunction = async (url, init) => {
      const response = await globalThis.fetch(url, init);
      const text = await response.clone().text();
      const { pathname, search } = new URL(url);
      validator.check(init?.method ?? "GET", `${pathname}${search}`, response.status, text === "" ? undefined : JSON.parse(text));
      return response;
    };

    before(async function () {
      this.timeout(120_000);
      devnet = await sharedDevnet();
    });

    it("serves the document it builds", async () => {
      const response = await validating(`${devnet.apiUrl}/openapi.json`);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApiDocument())));
      expect((await validating(`${devnet.apiUrl}/health`)).status).to.equal(200);
    });

    it("onboarding, snapshot, quote and gasless responses (successes and errors)", async () => {
      const anonymous = createTradingClient({ apiUrl: devnet.apiUrl, fetch: validating, maxAttempts: 1 });
      const owner = devnet.emptyWallet();
      const { application, apiKey } = await anonymous.onboard(owner, { chainId: 4663, displayName: "OpenAPI", slug: `openapi-${owner.account.address.slice(2, 10).toLowerCase()}`, requestedMaxFeeBps: 10 });
      await anonymous.viewProfile(owner);
      const spare = await anonymous.createApiKey(owner, application.integrator_id, "spare");
      await anonymous.revokeApiKey(owner, application.integrator_id, spare.key_id);
      await anonymous.revokeApiKey(owner, application.integrator_id, spare.key_id).catch(() => undefined); // 409
      await anonymous.getSupportedTokens();
      await anonymous.refreshSupportedTokens(); // 304
      await validating(`${devnet.apiUrl}/tokens/supported-tokens?chain_id=x`); // 400
      const tokenList = await validating(`${devnet.apiUrl}/tokens?chain_id=4663`); // 200
      await validating(`${devnet.apiUrl}/tokens`, { headers: { "if-none-match": tokenList.headers.get("etag")! } }); // 304
      await validating(`${devnet.apiUrl}/tokens?chain_id=x`); // 400
      const sources = await validating(`${devnet.apiUrl}/sources?chain_id=4663`); // 200
      await validating(`${devnet.apiUrl}/sources`, { headers: { "if-none-match": sources.headers.get("etag")! } }); // 304
      await validating(`${devnet.apiUrl}/sources?chain_id=x`); // 400
      await validating(`${devnet.apiUrl}/integrators/nonce`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }); // 400

      const client = createTradingClient({
        apiUrl: devnet.apiUrl,
        apiKey: apiKey!.api_key,
        fetch: validating,
        maxAttempts: 1,
        publicClient: devnet.publicClient,
        contracts: { routerRegistry: devnet.manifest.contracts.routerRegistry },
      });
      const taker = devnet.wallet(DEV_KEYS[8]);
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 50_000_000n, taker: taker.account.address, gasless: true });
      await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 0n, taker: taker.account.address }).catch(() => undefined); // 400
      await client.getPrice({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 50_000_000n, taker: taker.account.address, feeBps: 5 }); // 200
      await client.getPrice({ sellToken: devnet.token("USDC"), buyToken: devnet.token("USDC"), sellAmount: 1n, taker: taker.account.address }).catch(() => undefined); // 400
      // Exact output (buy_amount): the quote and the price carry max_sell_amount, and both or neither amount is a 400.
      const exact = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), buyAmount: 10n ** 16n, taker: taker.account.address }); // 200
      expect(exact.max_sell_amount).to.match(/^[0-9]+$/);
      expect((await client.getPrice({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), buyAmount: "0.01", amountUnit: "token", taker: taker.account.address })).buy_amount).to.equal(String(10n ** 16n));
      await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1n, buyAmount: 1n, taker: taker.account.address }).catch(() => undefined); // 400
      await createTradingClient({ apiUrl: devnet.apiUrl, apiKey: "tsk_nope", fetch: validating, maxAttempts: 1 })
        .getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 1n, taker: taker.account.address })
        .catch(() => undefined); // 401
      const signature = await client.signGaslessQuote(quote, taker);
      const relay = await client.submitGasless(quote, signature, { idempotencyKey: `openapi-${quote.quote_id}` }); // 202
      await client.submitGasless(quote, signature, { idempotencyKey: `openapi-${quote.quote_id}` }); // 200, the same relay
      await client.waitForRelay(relay.relay_id, { intervalMs: 200, timeoutMs: 60_000 });
      await client.getRelay("00000000-0000-4000-8000-000000000000").catch(() => undefined); // 404
      await client.cancelRelay(relay.relay_id).catch(() => undefined); // 409: final already
      await client.cancelRelay("00000000-0000-4000-8000-000000000000").catch(() => undefined); // 404
      anonymous.close();
      client.close();

      const seen = [...validator.checked.keys()];
      for (const expected of [
        "POST /integrators/applications 201",
        "POST /integrators/api-keys 201",
        "POST /integrators/me 200",
        "POST /integrators/api-keys/{key_id}/revoke 200",
        "POST /integrators/api-keys/{key_id}/revoke 409",
        "GET /tokens/supported-tokens 200",
        "GET /tokens/supported-tokens 304",
        "GET /tokens/supported-tokens 400",
        "GET /tokens 200",
        "GET /tokens 304",
        "GET /tokens 400",
        "GET /sources 200",
        "GET /sources 304",
        "GET /sources 400",
        "POST /integrators/nonce 400",
        "GET /quote 200",
        "GET /quote 400",
        "GET /quote 401",
        "GET /price 200",
        "GET /price 400",
        "POST /gasless/submit 202",
        "POST /gasless/submit 200",
        "GET /gasless/status/{relay_id} 200",
        "GET /gasless/status/{relay_id} 404",
        "POST /gasless/cancel/{relay_id} 409",
        "POST /gasless/cancel/{relay_id} 404",
      ]) {
        expect(seen, expected).to.include(expected);
      }
    });
  });
});
