/**
 * The soak as a picture: one SVG with three panels over the run's time (latency p50/p99, requests a
 * second with 5xx, each process's RSS), every fault drawn as a shaded band across all three with its
 * label. Hand-written SVG: no dependency, opens in any browser.
 */
import type { FaultRecord } from "./faultSchedule";
import { percentile, type MemorySample, type RequestSample } from "./soakReport";

const WIDTH = 1100;
const PANEL_HEIGHT = 190;
const LEFT = 70;
const RIGHT = 150;
const TOP = 55;
const GAP = 40;
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];

type Series = { name: string; color: string; points: [number, number][]; dashed?: boolean };

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function panel(index: number, title: string, unit: string, series: Series[], durationMs: number, faults: readonly FaultRecord[]): string {
  const top = TOP + index * (PANEL_HEIGHT + GAP);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const max = niceMax(Math.max(0, ...series.flatMap((line) => line.points.map(([, y]) => y)).filter((value) => !Number.isNaN(value))));
  const x = (ms: number) => LEFT + (ms / durationMs) * plotWidth;
  const y = (value: number) => top + PANEL_HEIGHT - (value / max) * PANEL_HEIGHT;
  const parts: string[] = [];
  parts.push(`<text x="${LEFT}" y="${top - 8}" font-size="13" font-weight="bold">${escape(title)}</text>`);
  for (const fault of faults) {
    const from = x(fault.startMs);
    const to = Math.max(from + 2, x(fault.endMs));
    parts.push(`<rect x="${from.toFixed(1)}" y="${top}" width="${(to - from).toFixed(1)}" height="${PANEL_HEIGHT}" fill="${fault.kind === "burst" ? "#fde68a" : "#fecaca"}" opacity="0.6"/>`);
    if (index === 0) parts.push(`<text x="${from.toFixed(1)}" y="${top + 12}" font-size="10" transform="rotate(90 ${from.toFixed(1)} ${top + 12})">${escape(fault.label)}</text>`);
  }
  for (let tick = 0; tick <= 4; tick++) {
    const value = (max * tick) / 4;
    parts.push(`<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#ddd"/>`);
    parts.push(`<text x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" font-size="10" text-anchor="end">${Number(value.toPrecision(3))}</text>`);
  }
  parts.push(`<text x="14" y="${top + PANEL_HEIGHT / 2}" font-size="11" transform="rotate(-90 14 ${top + PANEL_HEIGHT / 2})" text-anchor="middle">${escape(unit)}</text>`);
  parts.push(`<rect x="${LEFT}" y="${top}" width="${plotWidth}" height="${PANEL_HEIGHT}" fill="none" stroke="#333"/>`);
  for (const [position, line] of series.entries()) {
    if (line.points.length === 0) continue;
    // A NaN value breaks the line (a process that was down, then a new one).
    const path = line.points
      .map(([ms, value], point) => (Number.isNaN(value) ? "" : `${point === 0 || Number.isNaN(line.points[point - 1]![1]) ? "M" : "L"}${x(ms).toFixed(1)},${y(value).toFixed(1)}`))
      .filter((step) => step !== "")
      .join(" ");
    parts.push(`<path d="${path}" fill="none" stroke="${line.color}" stroke-width="1.5"${line.dashed ? ' stroke-dasharray="4 3"' : ""}/>`);
    const legendY = top + 14 + position * 15;
    parts.push(`<line x1="${LEFT + plotWidth + 10}" x2="${LEFT + plotWidth + 28}" y1="${legendY - 4}" y2="${legendY - 4}" stroke="${line.color}" stroke-width="2"${line.dashed ? ' stroke-dasharray="4 3"' : ""}/>`);
    parts.push(`<text x="${LEFT + plotWidth + 32}" y="${legendY}" font-size="11">${escape(line.name)}</text>`);
  }
  return parts.join("\n");
}

/** Latency, throughput and memory over time, `bucketMs` per point, faults shaded. */
export function soakChart(input: { title: string; durationMs: number; bucketMs: number; requests: readonly RequestSample[]; memory: readonly MemorySample[]; faults: readonly FaultRecord[] }): string {
  const { durationMs, bucketMs } = input;
  const buckets = Math.max(1, Math.ceil(durationMs / bucketMs));
  const latencies: number[][] = Array.from({ length: buckets }, () => []);
  const counts = new Array<number>(buckets).fill(0);
  const errors = new Array<number>(buckets).fill(0);
  for (const sample of input.requests) {
    const bucket = Math.floor(sample.atMs / bucketMs);
    if (bucket < 0 || bucket >= buckets) continue;
    counts[bucket]!++;
    if (sample.status >= 500 || sample.status === 0) errors[bucket]!++;
    if (sample.status !== 0) latencies[bucket]!.push(sample.ms);
  }
  const middle = (bucket: number) => Math.min(durationMs, (bucket + 0.5) * bucketMs);
  const seconds = (bucket: number) => (Math.min(durationMs, (bucket + 1) * bucketMs) - bucket * bucketMs) / 1000;
  const sorted = latencies.map((values) => values.sort((a, b) => a - b));
  const latency: Series[] = [
    { name: "p50", color: COLORS[0]!, points: sorted.map((values, bucket) => [middle(bucket), percentile(values, 50)]) },
    { name: "p99", color: COLORS[1]!, points: sorted.map((values, bucket) => [middle(bucket), percentile(values, 99)]) },
  ];
  const throughput: Series[] = [
    { name: "requests/s", color: COLORS[2]!, points: counts.map((count, bucket) => [middle(bucket), count / seconds(bucket)]) },
    { name: "5xx + unanswered/s", color: COLORS[1]!, points: errors.map((count, bucket) => [middle(bucket), count / seconds(bucket)]) },
  ];
  const processes = [...new Set(input.memory.map((sample) => sample.process))].sort();
  const memory: Series[] = processes.map((process, index) => ({
    name: process,
    color: COLORS[index % COLORS.length]!,
    dashed: process === "chain" || process === "postgres",
    points: input.memory
      .filter((sample) => sample.process === process)
      .flatMap((sample, index, all): [number, number][] => [
        ...(index > 0 && all[index - 1]!.pid !== sample.pid ? [[sample.atMs, Number.NaN] as [number, number]] : []),
        [sample.atMs, sample.rssKiB / 1024],
      ]),
  }));
  const height = TOP + 3 * (PANEL_HEIGHT + GAP) + 10;
  const plotWidth = WIDTH - LEFT - RIGHT;
  // Ticks at a round number of minutes, at most twelve.
  const stepMinutes = [0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120].find((step) => durationMs / 60_000 / step <= 12) ?? 240;
  const ticks = Array.from({ length: Math.floor(durationMs / 60_000 / stepMinutes) + 1 }, (_, tick) => tick * stepMinutes * 60_000)
    .map((ms) => {
      const tx = LEFT + (ms / durationMs) * plotWidth;
      return `<text x="${tx.toFixed(1)}" y="${height - 12}" font-size="10" text-anchor="middle">${Number((ms / 60_000).toFixed(2))} min</text>`;
    })
    .join("\n");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height + 10}" viewBox="0 0 ${WIDTH} ${height + 10}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${LEFT}" y="20" font-size="15" font-weight="bold">${escape(input.title)}</text>`,
    panel(0, "Latency (every request answered)", "ms", latency, durationMs, input.faults),
    panel(1, "Throughput", "requests/s", throughput, durationMs, input.faults),
    panel(2, "Resident memory (RSS); dashed: chain and PostgreSQL", "MiB", memory, durationMs, input.faults),
    ticks,
    "</svg>",
    "",
  ].join("\n");
}
