/**
 * Generative-UI bundling benchmark (in-process agent server on PGlite, the fixture's ui.tsx):
 *
 * - floor: esbuild bundling the module directly (buildUiBundle), no server;
 * - start-up until listening, with and without `ui` (bundling must not delay serving);
 * - the first `GET /ok` right after start (answered while the build runs);
 * - start → first `POST /ui/{graph}` answer, with a cold and with a warm build cache (the warm
 *   round restarts on the same data directory, so its database exists too).
 *
 * Usage: node --import tsx bench/generative-ui.ts   (BENCH_N=5 rounds; medians printed)
 */
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAgentServer } from "../src/agent-server/server.js";
import { buildUiBundle } from "../src/agent-server/ui/bundle.js";
import { resolveAgentServerSettings } from "../src/shared/config.js";
import { silentLogger } from "../src/shared/logging.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURE = path.join(ROOT, "test/fixtures/generative-ui");
const N = Number(process.env.BENCH_N ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function project(withUi: boolean): Promise<{ dir: string; config: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-ui-"));
  await copyFile(path.join(FIXTURE, "ui.tsx"), path.join(dir, "ui.tsx"));
  await copyFile(path.join(FIXTURE, "styles.css"), path.join(dir, "styles.css"));
  const config = path.join(dir, "langgraph.json");
  await writeFile(
    config,
    JSON.stringify({
      graphs: { "ui-agent": path.join(FIXTURE, "graph.ts:graph") },
      ...(withUi ? { ui: { "ui-agent": "./ui.tsx" }, ui_config: { shared: ["@fixture/shared-widgets"] } } : {}),
    }),
  );
  return { dir, config };
}

async function round(config: string, dataDir: string, withUi: boolean) {
  const settings = resolveAgentServerSettings({ configPath: config, port: 0, dataDir, logLevel: "silent" }, {}, () => dataDir);
  const t0 = performance.now();
  const handle = await startAgentServer(settings, silentLogger);
  const listening = performance.now() - t0;
  const ok0 = performance.now();
  await (await fetch(`${handle.url}/ok`)).text();
  const firstOk = performance.now() - ok0;
  let uiReady = NaN;
  if (withUi) {
    const r = await fetch(`${handle.url}/ui/ui-agent`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"weather"}' });
    if (r.status !== 200) throw new Error(`POST /ui answered ${r.status}: ${await r.text()}`);
    await r.text();
    uiReady = performance.now() - t0;
  }
  await handle.close(0);
  return { listening, firstOk, uiReady };
}

const floor: number[] = [];
for (let i = 0; i < N; i++) {
  const t0 = performance.now();
  await buildUiBundle({ graphId: "ui-agent", projectDir: FIXTURE, modulePath: "./ui.tsx", shared: ["@fixture/shared-widgets"] });
  floor.push(performance.now() - t0);
}

const rows: Record<string, number[]> = { plainListen: [], uiListen: [], uiFirstOk: [], coldUi: [], warmUi: [] };
for (let i = 0; i < N; i++) {
  const plain = await project(false);
  const withUi = await project(true);
  const plainData = await mkdtemp(path.join(os.tmpdir(), "berth-bench-data-"));
  const uiData = await mkdtemp(path.join(os.tmpdir(), "berth-bench-data-"));
  try {
    rows.plainListen!.push((await round(plain.config, plainData, false)).listening);
    const cold = await round(withUi.config, uiData, true);
    rows.uiListen!.push(cold.listening);
    rows.uiFirstOk!.push(cold.firstOk);
    rows.coldUi!.push(cold.uiReady);
    rows.warmUi!.push((await round(withUi.config, uiData, true)).uiReady);
  } finally {
    for (const d of [plain.dir, withUi.dir, plainData, uiData]) await rm(d, { recursive: true, force: true });
  }
}

const f = median(floor);
console.log(`generative UI (PGlite, medians of ${N}; load: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")})`);
console.log(`  floor: esbuild bundle of ui.tsx, in-process      ${f.toFixed(1)} ms`);
console.log(`  start → listening, no ui                         ${median(rows.plainListen!).toFixed(1)} ms`);
console.log(`  start → listening, with ui (cold cache)          ${median(rows.uiListen!).toFixed(1)} ms  (x${(median(rows.uiListen!) / median(rows.plainListen!)).toFixed(2)} of no ui)`);
console.log(`  first GET /ok after start, build running         ${median(rows.uiFirstOk!).toFixed(1)} ms`);
console.log(`  start → POST /ui answered, cold cache            ${median(rows.coldUi!).toFixed(1)} ms  (${(median(rows.coldUi!) - median(rows.uiListen!)).toFixed(1)} ms after listening; floor x${((median(rows.coldUi!) - median(rows.uiListen!)) / f).toFixed(2)})`);
console.log(`  start → POST /ui answered, warm cache, db exists ${median(rows.warmUi!).toFixed(1)} ms`);
