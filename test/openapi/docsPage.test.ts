import { expect } from "chai";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = join(__dirname, "..", "..", "bench-results", "docs.png");

describe("GET /docs in a real browser (headless Chromium)", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  let browser: Browser;

  before(async function () {
    this.timeout(120_000);
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y --no-install-recommends chromium; .ci/run does) or set CHROMIUM_PATH`);
    devnet = await sharedDevnet();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
  });
  after(async () => {
    await browser?.close();
  });

  it("renders every endpoint from node_modules only, and 'try it' on GET /tokens/supported-tokens gets a 200", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const origin = new URL(devnet.apiUrl).origin;
    const foreign: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith("data:")) foreign.push(request.url());
    });
    await page.goto(`${devnet.apiUrl}/docs`);
    await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
    const paths = await page.locator(".opblock-summary-path").allInnerTexts();
    const rendered = paths.map((text) => text.replace(/\u200b/g, "").trim());
    for (const path of ["/quote", "/tokens/supported-tokens", "/gasless/submit", "/gasless/status/{relay_id}", "/integrators/nonce", "/integrators/api-keys/{key_id}/revoke"]) {
      expect(rendered, path).to.include(path);
    }

    const operation = page.locator("#operations-tokens-getSupportedTokens");
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    const answered = page.waitForResponse((response) => response.url().startsWith(`${devnet.apiUrl}/tokens/supported-tokens`));
    await operation.getByRole("button", { name: "Execute" }).click();
    expect((await answered).status()).to.equal(200);
    const status = operation.locator(".live-responses-table tbody .response-col_status").first();
    await status.waitFor({ timeout: 15_000 });
    expect((await status.innerText()).trim()).to.equal("200");
    expect(await operation.locator(".live-responses-table").innerText()).to.include("schema_version");

    mkdirSync(join(SCREENSHOT, ".."), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(foreign, "the page loads nothing from outside the API (no CDN)").to.deep.equal([]);
    await page.close();
  });
});
