/**
 * Operator benchmark: `berth operator` (compiled, its own process, no leader election) against the
 * in-process fake API server of the tests (real HTTP and watches; a simulated kubelet marks
 * workloads available after --kubelet-ms). Prints one table with three phases:
 *
 * - create:   --n AgentDeployments created (32 at a time) → every one Ready and the queue idle
 * - rollout:  a new revision on every one → every latestReadyRevision updated and the queue idle
 * - restart:  the operator restarted with all of them up to date → caches synced and idle again
 *             (what a new leader pays: it must relist and look at everything, and write nothing)
 *
 * For each: time to steady state, reconciles/s, API calls per reconcile (the operator's own
 * count of its requests, watches excluded, and the writes among them), the operator's CPU time, and
 * its memory (RSS, and V8 heap used) at the end. Figures depend on the machine's load; the fake API
 * server shares the machine with the operator and, in this process, uses most of the CPU — the
 * operator's CPU time is the figure that is about the operator alone.
 *
 *   make bench-operator            (BENCH_OPERATOR_FLAGS="--n 200" for a quick run)
 */
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { KubeRest } from "../src/operator/kube/index.js";
import { startFakeApiServer, type FakeApiServer } from "../test/fake-apiserver/index.js";
import { agentDeploymentObject } from "../test/helpers/operator.js";
import { buildDist, forkBerth, pool, printTable, rssMb } from "./lib.js";

const { values: flags } = parseArgs({
  options: {
    n: { type: "string", default: "1000" },
    "kubelet-ms": { type: "string", default: "50" },
    workers: { type: "string", default: "4" },
  },
});
const N = Number(flags.n);
const NS = "bench";

type Metrics = Map<string, number>;

/** Prometheus text → sums by metric name and by name{labels}. */
function parseMetrics(text: string): Metrics {
  const m = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const v = Number(match[3]);
    m.set(match[1]!, (m.get(match[1]!) ?? 0) + v);
    if (match[2]) m.set(match[1]! + match[2], v);
  }
  return m;
}

const sumWhere = (m: Metrics, name: string, pred: (labels: string) => boolean) => [...m].filter(([k]) => k.startsWith(`${name}{`) && pred(k.slice(name.length))).reduce((s, [, v]) => s + v, 0);

async function scrape(url: string): Promise<Metrics> {
  return parseMetrics(await (await fetch(`${url}/metrics`)).text());
}

interface Snapshot {
  reconciles: number;
  requests: number;
  writes: number;
  cpuSeconds: number;
}
const snapshot = (m: Metrics): Snapshot => ({
  cpuSeconds: m.get("process_cpu_seconds_total") ?? 0,
  reconciles: m.get("controller_runtime_reconcile_total") ?? 0,
  requests: m.get("rest_client_requests_total") ?? 0,
  writes: sumWhere(m, "rest_client_requests_total", (l) => !/verb="(get|list)"/.test(l)),
});

/** Wait until `done()` holds and the operator's queue is empty with no reconcile for 500 ms. */
async function steady(url: string, done: () => boolean, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let stableSince = 0;
  while (Date.now() < deadline) {
    if (done()) {
      const m = await scrape(url);
      const r = m.get("controller_runtime_reconcile_total") ?? 0;
      const depth = m.get("workqueue_depth") ?? 0;
      if (depth === 0 && r === last) {
        if (Date.now() - stableSince >= 500) return;
      } else stableSince = Date.now();
      last = r;
    }
    // not faster: listing 1,000 objects from the fake costs this process (which also serves the operator) CPU
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("no steady state before the timeout");
}

const readyCount = (fake: FakeApiServer, pred: (ad: any) => boolean) => fake.list("berth.dev/v1alpha1", "AgentDeployment", NS).filter(pred).length;
const isReady = (ad: any) => ad.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");

async function startOp(kubeconfig: string) {
  return forkBerth<{ url: string }>(["operator", "--kubeconfig", kubeconfig, "--port", "0", "--no-leader-elect", "--workers", flags.workers!], {
    env: { ...process.env, LOG_LEVEL: "warn", HOST: "127.0.0.1", BERTH_OPERATOR_HOST: "127.0.0.1" },
  });
}

async function main(): Promise<void> {
  buildDist();
  const fake = await startFakeApiServer({ kubelet: { delayMs: Number(flags["kubelet-ms"]) }, historyLimit: 200_000 });
  const dir = mkdtempSync(path.join(tmpdir(), "berth-bench-op-"));
  const kubeconfig = path.join(dir, "kubeconfig.json");
  writeFileSync(kubeconfig, fake.kubeConfig().exportConfig());
  const rest = new KubeRest(fake.kubeConfig());
  const rows: string[][] = [];
  let op = await startOp(kubeconfig);
  try {
    const phase = async (name: string, act: () => Promise<void>, done: () => boolean, url: () => string) => {
      const before = snapshot(await scrape(url()));
      const t0 = performance.now();
      await act();
      await steady(url(), done);
      const seconds = (performance.now() - t0) / 1000 - 0.5; // minus the 500 ms stability window
      const m = await scrape(url());
      const after = snapshot(m);
      const reconciles = after.reconciles - before.reconciles;
      rows.push([
        name,
        `${seconds.toFixed(1)} s`,
        String(reconciles),
        (reconciles / seconds).toFixed(0),
        ((after.requests - before.requests) / Math.max(1, reconciles)).toFixed(2),
        ((after.writes - before.writes) / Math.max(1, reconciles)).toFixed(2),
        `${(after.cpuSeconds - before.cpuSeconds).toFixed(1)} s`,
        `${(await rssMb(op.child.pid!)).toFixed(0)} MB`,
        `${((m.get("nodejs_heap_size_used_bytes") ?? 0) / 2 ** 20).toFixed(0)} MB`,
      ]);
    };

    await phase(
      "create",
      () => pool(N, 32, (i) => rest.create(agentDeploymentObject(`agent-${i}`, NS)).then(() => undefined)).then(() => undefined),
      () => readyCount(fake, isReady) === N,
      () => op.ready.url,
    );

    const revision = "9d3c1f6e-2b4a-4c8d-9e0f-1a2b3c4d5e6f";
    await phase(
      "rollout",
      () =>
        pool(N, 32, (i) =>
          rest.mergePatch({ apiVersion: "berth.dev/v1alpha1", kind: "AgentDeployment", namespace: NS, name: `agent-${i}` }, { spec: { revisionId: revision, image: "registry.example.com/agents/demo:2" } }).then(() => undefined),
        ).then(() => undefined),
      () => readyCount(fake, (ad) => ad.status?.latestReadyRevision === revision && isReady(ad)) === N,
      () => op.ready.url,
    );

    await op.stop();
    const restartStarted = performance.now();
    op = await startOp(kubeconfig);
    const startup = (performance.now() - restartStarted) / 1000;
    await phase("restart", async () => undefined, () => true, () => op.ready.url);
    rows[rows.length - 1]![1] = `${(Number(rows[rows.length - 1]![1]!.split(" ")[0]) + startup).toFixed(1)} s`;
  } finally {
    await op.stop();
    rest.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nOperator: ${N} AgentDeployments, ${flags.workers} workers, kubelet delay ${flags["kubelet-ms"]} ms, fake API server in the benchmark process\n`);
  printTable(["phase", "to steady state", "reconciles", "reconciles/s", "API calls/reconcile", "writes/reconcile", "operator CPU", "operator RSS", "heap used", ""], rows);
}

await main();
