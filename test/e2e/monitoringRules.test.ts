import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { writeManifest } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { freePort } from "../../scripts/devnet/freePort";
import { spawnService, type SpawnedService } from "../../scripts/devnet/spawnService";
import { spawnChildRelayer } from "../fixtures/childRelayer";
import { gaslessReadyFixture, relayerAccounts } from "../fixtures/gaslessStack";
import { promqlMetricNames } from "../fixtures/promqlMetricNames";
import { fixtureManifest } from "../fixtures/tradingApi";

const MONITORING = join(__dirname, "..", "..", "docs", "operators", "monitoring");

/** Series Prometheus makes itself for every scrape target, which no service exports. */
const PROMETHEUS_SERIES = new Set(["up", "scrape_duration_seconds", "scrape_samples_scraped"]);

const alertRules = z.strictObject({
  groups: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        rules: z
          .array(
            z.strictObject({
              alert: z.string().regex(/^[A-Z][A-Za-z0-9]+$/, "alert names are CamelCase"),
              expr: z.string().min(1),
              for: z.string().regex(/^([0-9]+[smhd])+$/).optional(),
              labels: z.strictObject({ severity: z.enum(["critical", "warning"]) }),
              annotations: z.strictObject({ summary: z.string().min(10), description: z.string().min(10), runbook: z.string().regex(/^docs\/operators\/monitoring\/alerts\.md#[a-z0-9-]+$/) }),
            }),
          )
          .min(1),
      }),
    )
    .min(1),
});

const target = z.object({ refId: z.string().regex(/^[A-Z]$/), expr: z.string().min(1), legendFormat: z.string(), datasource: z.object({ type: z.literal("prometheus"), uid: z.literal("${datasource}") }) });
const gridPos = z.object({ h: z.number().int().positive(), w: z.number().int().min(1).max(24), x: z.number().int().min(0).max(23), y: z.number().int().min(0) });
const dashboardSchema = z.object({
  title: z.string().min(1),
  uid: z.string().regex(/^[a-z0-9-]{1,40}$/),
  schemaVersion: z.number().int().min(30),
  templating: z.object({ list: z.array(z.object({ name: z.string(), type: z.enum(["datasource", "query"]), query: z.unknown() })) }),
  panels: z
    .array(
      z.discriminatedUnion("type", [
        z.object({ type: z.literal("row"), id: z.number().int(), title: z.string().min(1), gridPos }),
        z.object({ type: z.enum(["timeseries", "stat"]), id: z.number().int(), title: z.string().min(1), gridPos, targets: z.array(target).min(1) }),
      ]),
    )
    .min(1),
});

/** Every metric a `/metrics` page declares (`# TYPE name type`), with its type. */
function declaredMetrics(page: string): Map<string, string> {
  return new Map([...page.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1]!, match[2]!]));
}

/** The metric a series name belongs to: itself, or the histogram or summary whose `_bucket`/`_sum`/`_count` it is. */
function metricOf(name: string, declared: ReadonlyMap<string, string>): string | undefined {
  if (declared.has(name)) return name;
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  const type = base === undefined ? undefined : declared.get(base);
  if (type === "histogram" || (type === "summary" && !name.endsWith("_bucket"))) return base;
  return undefined;
}

function readAlerts() {
  return alertRules.parse(parse(readFileSync(join(MONITORING, "alerts.yml"), "utf8")));
}

function readDashboard() {
  return dashboardSchema.parse(JSON.parse(readFileSync(join(MONITORING, "grafana-dashboard.json"), "utf8")));
}

/** Each PromQL expression of the alert rules and the dashboard (its panels' targets and its variables' queries), with where it is. */
function expressions(): { where: string; expr: string }[] {
  const alerts = readAlerts().groups.flatMap((group) => group.rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })));
  const dashboard = readDashboard();
  const panels = dashboard.panels.flatMap((panel) => (panel.type === "row" ? [] : panel.targets.map((t) => ({ where: `panel "${panel.title}" ${t.refId}`, expr: t.expr }))));
  // Grafana's label_values(metric, label) is not PromQL: its metric is checked like the others.
  const variables = dashboard.templating.list.flatMap((variable) => {
    const query = (variable.query as { query?: string } | undefined)?.query;
    const metric = query === undefined ? undefined : /^label_values\((\w+),\s*\w+\)$/.exec(query)?.[1];
    return metric === undefined ? [] : [{ where: `variable ${variable.name}`, expr: metric }];
  });
  return [...alerts, ...panels, ...variables];
}

/**
 * The operator's dashboard and alerting rules (docs/operators/monitoring/) read only metrics the
 * services export: the API (api/main.ts) and the relayer (relayer/main.ts) run as production runs
 * them, each in its own process, and their GET /metrics pages are the list every expression is
 * checked against. A renamed metric fails here, not silently in Grafana.
 */
describe("monitoring: dashboard and alert rules", function () {
  this.timeout(120_000);
  let chain: ChainServer;
  let directory: string;
  let api: SpawnedService | undefined;
  let relayer: SpawnedService | undefined;
  let declared: Map<string, string>;
  let pages: { api: string; relayer: string };

  before(async () => {
    const f = await loadFixture(gaslessReadyFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    directory = mkdtempSync(join(tmpdir(), "monitoring-"));
    const manifest = await fixtureManifest(f);
    writeManifest(join(directory, `${manifest.chainId}.json`), manifest);
    const [apiPort, apiMetricsPort, relayerPort, relayerMetricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    [api, relayer] = await Promise.all([
      spawnService(
        "api/main.ts",
        { API_PORT: String(apiPort), API_DB_PATH: join(directory, "api.sqlite"), API_LOG_LEVEL: "warn", RPC_URL: chain.url, DEPLOYMENTS_DIR: directory, METRICS_PORT: String(apiMetricsPort) },
        /^Integrator API on (\S+)$/m,
      ),
      spawnChildRelayer({ keys: relayerAccounts(2).signers, rpcUrl: chain.url, directory, port: relayerPort, env: { RELAYER_METRICS_PORT: String(relayerMetricsPort) } }),
    ]);
    const scrape = async (port: number) => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).to.equal(200);
      return response.text();
    };
    pages = { api: await scrape(apiMetricsPort), relayer: await scrape(relayerMetricsPort) };
    declared = new Map([...declaredMetrics(pages.api), ...declaredMetrics(pages.relayer)]);
  });
  after(async () => {
    await api?.stop();
    await relayer?.stop();
    await chain?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  it("every expression of the alert rules and of the dashboard names only metrics the API's or the relayer's /metrics declares", () => {
    const all = expressions();
    expect(all.length).to.be.greaterThan(40);
    const unknown: string[] = [];
    const used = new Set<string>();
    for (const { where, expr } of all) {
      const names = promqlMetricNames(expr);
      expect(names, `${where} reads no metric: ${expr}`).to.not.be.empty;
      for (const name of names) {
        if (PROMETHEUS_SERIES.has(name)) continue;
        const metric = metricOf(name, declared);
        if (metric === undefined) unknown.push(`${where}: ${name}`);
        else used.add(metric);
      }
    }
    expect(unknown, "metrics no service exports").to.deep.equal([]);
    // Both services are watched, and what the issue names is covered.
    for (const metric of [
      "api_http_request_duration_seconds",
      "relayer_signer_balance_wei",
      "relayer_signer_min_balance_wei",
      "relayer_signer_nonce_lag",
      "relayer_unpaid_gas_wei",
      "relayer_send_endpoint_total",
      "relayer_rpc_endpoint_usable",
      "relayer_rpc_endpoint_head_lag_blocks",
      "relayer_rpc_endpoint_failovers_total",
      "relayer_webhook_backlog",
      "relayer_signing_refusals_total",
      "relayer_queue_depth",
      "relayer_confirmation_latency_seconds",
    ]) {
      expect(used.has(metric), `${metric} is watched`).to.equal(true);
    }
  });

  it("the relayer declares its signer floor and webhook backlog with values, and the API and the relayer share no metric name but the process defaults", () => {
    expect(pages.relayer).to.match(/^relayer_signer_min_balance_wei 100000000000000000$/m);
    expect(pages.relayer).to.match(/^relayer_webhook_backlog 0$/m);
    expect(pages.relayer).to.match(/^relayer_webhook_oldest_pending_seconds 0$/m);
    const apiNames = [...declaredMetrics(pages.api).keys()].filter((name) => !/^(process|nodejs)_/.test(name));
    const relayerNames = [...declaredMetrics(pages.relayer).keys()].filter((name) => !/^(process|nodejs)_/.test(name));
    expect(apiNames.every((name) => name.startsWith("api_"))).to.equal(true);
    expect(relayerNames.every((name) => name.startsWith("relayer_"))).to.equal(true);
  });

  it("the alert rules have the structure Prometheus loads (groups, rules with alert, expr, for, labels, annotations), unique names, and a section of alerts.md for each", () => {
    const alerts = readAlerts();
    const names = alerts.groups.flatMap((group) => group.rules.map((rule) => rule.alert));
    expect(new Set(names).size).to.equal(names.length);
    expect(new Set(alerts.groups.map((group) => group.name)).size).to.equal(alerts.groups.length);
    const page = readFileSync(join(MONITORING, "alerts.md"), "utf8");
    const anchors = new Set([...page.matchAll(/^### (\S+)$/gm)].map((match) => match[1]!.toLowerCase()));
    for (const group of alerts.groups) {
      for (const rule of group.rules) {
        expect(rule.annotations.runbook, rule.alert).to.equal(`docs/operators/monitoring/alerts.md#${rule.alert.toLowerCase()}`);
        expect(anchors.has(rule.alert.toLowerCase()), `alerts.md explains ${rule.alert}`).to.equal(true);
      }
    }
    expect([...anchors].sort()).to.deep.equal(names.map((name) => name.toLowerCase()).sort());
  });

  it("the dashboard is Grafana JSON: unique panel ids, panels inside the 24-column grid without overlap, a Prometheus datasource variable", () => {
    const dashboard = readDashboard();
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).to.equal(ids.length);
    const cells = new Set<string>();
    for (const panel of dashboard.panels) {
      const { x, y, w, h } = panel.gridPos;
      expect(x + w, panel.title).to.be.at.most(24);
      for (let column = x; column < x + w; column++) {
        for (let line = y; line < y + h; line++) {
          const cell = `${column},${line}`;
          expect(cells.has(cell), `${panel.title} overlaps another panel at ${cell}`).to.equal(false);
          cells.add(cell);
        }
      }
    }
    expect(dashboard.templating.list.find((variable) => variable.name === "datasource")?.type).to.equal("datasource");
  });

  it("the expression scanner finds metric names behind aggregations, matchers, ranges and vector matching, and refuses an unknown function", () => {
    expect(promqlMetricNames('relayer_signer_balance_wei < ignoring(signer) group_left() (2 * relayer_signer_min_balance_wei)')).to.deep.equal(["relayer_signer_balance_wei", "relayer_signer_min_balance_wei"]);
    expect(promqlMetricNames('histogram_quantile(0.99, sum by (route, le) (rate(a_bucket{route!="unmatched",x=~"$instance"}[$__rate_interval])))')).to.deep.equal(["a_bucket"]);
    expect(promqlMetricNames('sum without (job) (rate(b_total{a="} c_total {"}[5m] offset 1h30m)) > bool 5e16 unless on(job) up == 0')).to.deep.equal(["b_total", "up"]);
    expect(() => promqlMetricNames("rat(b_total[5m])")).to.throw(/unknown PromQL function rat/);
    expect(() => promqlMetricNames("sum(rate(b_total[5m])")).to.throw(/unbalanced/);
    const declaredHere = new Map([["h", "histogram"], ["c_total", "counter"]]);
    expect([metricOf("h_bucket", declaredHere), metricOf("h_count", declaredHere), metricOf("c_total", declaredHere), metricOf("c_total_count", declaredHere), metricOf("h2_bucket", declaredHere)]).to.deep.equal(["h", "h", "c_total", undefined, undefined]);
  });
});
