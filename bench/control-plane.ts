/**
 * Control plane benchmark (`berth dev`: the control plane REST API, tracing and the local runtime).
 * Prints three tables:
 *
 * - deploy: POST /v2/deployments → DEPLOYED for the example agents, --deploys times (a fresh
 *   deployment each), split into phases read from the revision's build and deploy logs (every line
 *   carries the time the deployer logged it) and from the revision's `updated_at` at DEPLOYED:
 *     queue    POST sent → "cloning …" (API, QUEUED → AWAITING_BUILD → BUILDING, the deployment's proxy)
 *     clone    "cloning …" → "checkout done"                  (git clone --depth 1 of a file:// repo)
 *     install  "checkout done" → "install command done"       (install_command "true", see below)
 *     build    "install command done" → "starting the agent server"  (build_command: none in the
 *              examples, so only the AWAITING_DEPLOY and DEPLOYING status writes)
 *     start    "starting the agent server" → "healthy after"  (spawn `berth serve`, load the graphs, /ok)
 *     go-live  "healthy after" → DEPLOYED (revision updated_at) (proxy switch, status write)
 *   plus when `GET …/revisions/{id}?wait=` returned (it re-reads every 250 ms) and the first run.
 * - secrets: on each of those deployments, once DEPLOYED, a secrets-only PATCH (GREETING changes):
 *   from the PATCH until a run through the deployment URL returns the new value (runs sent back to
 *   back meanwhile), split the same way; "stop old" is the embedded-database (PGlite) swap: the old
 *   process is stopped before the new one starts, requests are held by the proxy meanwhile.
 * - API: --deployments deployments present (hosted_git, install_command "exit 1": each is cloned
 *   and ends BUILD_FAILED within a second, so the rows are real — a revision with build logs, a
 *   tracing project, the deployment's proxy — without --deployments agent servers sharing the
 *   machine), then --clients concurrent clients for --seconds per endpoint (GET /v2/deployments
 *   ?limit=20 at a random page, GET /v2/deployments/{id}, GET /v2/deployments/{id}/revisions), and
 *   all three mixed; p50/p99 and req/s, next to one client alone.
 *
 * The example repo: a git repository made under scratch/ (git-ignored; graphs resolve
 * @langchain/langgraph from this checkout's node_modules by walking up) holding a copy of this
 * checkout's examples/ (so uncommitted changes to them count, and nothing depends on what is
 * committed), a package.json with "type": "module", and one extra 6-line graph `greet` in
 * examples/langgraph.json that returns process.env.GREETING (the examples do not read it).
 * Install: install_command "true" (this checkout's node_modules serve the graphs, as in the README's
 * quick start). The detected install (`npm install`: a package.json without a lockfile) would
 * need the network and measure npm, so it is not run.
 *
 * `berth dev` runs as its own process from a fresh dist/ build, on its embedded database (PGlite)
 * under scratch/, with the deployer's defaults (as `make dev` runs it).
 * Usage: node --import tsx bench/control-plane.ts [--deploys 5] [--deployments 200] [--clients 50]
 *        [--seconds 10] [--create-concurrency 8]
 *        [--cpu-prof DIR]   (writes a CPU profile of berth dev to DIR when it exits)
 */
import { execFileSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT, buildDist, forkBerth, pool, printTable, rssMb } from "./lib.js";

const { values: args } = parseArgs({
  options: {
    deploys: { type: "string", default: "5" },
    deployments: { type: "string", default: "200" },
    clients: { type: "string", default: "50" },
    seconds: { type: "string", default: "10" },
    "create-concurrency": { type: "string", default: "8" },
    "cpu-prof": { type: "string" },
  },
});
const DEPLOYS = Number(args.deploys);
const DEPLOYMENTS = Number(args.deployments);
const CLIENTS = Number(args.clients);
const SECONDS = Number(args.seconds);
const CREATE_CONCURRENCY = Number(args["create-concurrency"]);
const WAIT_S = 180;

// ---- statistics and output -------------------------------------------------------------------
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number) => {
  const s = sorted(xs);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : NaN);
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "—");
const s2 = (ms: number) => f(ms / 1000, 2);
const int = (n: number) => Math.round(n).toLocaleString("en-US");
const table = printTable;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- CPU time of a process (/proc) -------------------------------------------------------------
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
function procCpu(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime
  } catch {
    return 0;
  }
}
/** Processes whose command line or working directory is in `dir` (our scratch directory): what must not be left. */
function processesIn(dir: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch {
        // not ours to read
      }
      if (cmd.includes(dir) || cwd.startsWith(dir)) out.push({ pid: Number(name), cmd });
    } catch {
      // gone
    }
  }
  return out;
}

// ---- the example repo ------------------------------------------------------------------------
const GREET_TS = `import { Annotation, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ greeting: Annotation<string> });
export const graph = new StateGraph(State)
  .addNode("read", async () => ({ greeting: process.env.GREETING ?? "unset" }))
  .addEdge("__start__", "read")
  .compile();
`;

function createExampleRepo(dir: string): { url: string; head: string } {
  mkdirSync(dir, { recursive: true });
  const skip = new Set([".berth", "node_modules"]);
  cpSync(path.join(ROOT, "examples"), path.join(dir, "examples"), { recursive: true, filter: (src) => !skip.has(path.basename(src)) });
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "berth-bench-agents", private: true, type: "module" }, null, 2)}\n`);
  const configPath = path.join(dir, "examples/langgraph.json");
  const config = JSON.parse(readFileSync(configPath, "utf8")) as { graphs: Record<string, unknown> };
  config.graphs.greet = "./greet.ts:graph";
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(path.join(dir, "examples/greet.ts"), GREET_TS);
  const git = (...a: string[]) => execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...a], { cwd: dir }).toString().trim();
  git("init", "--quiet", "--initial-branch=main");
  git("add", ".");
  git("commit", "--quiet", "-m", "example agents");
  return { url: `file://${dir}`, head: git("rev-parse", "HEAD") };
}

// ---- berth dev -------------------------------------------------------------------------------
interface Dev {
  url: string;
  apiKey: string;
  integrationId: string;
  child: ChildProcess;
  /** Log lines of berth dev at level error or fatal (pino JSON on stdout). */
  errors: string[];
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; killed: boolean }>;
}

async function startDev(dataDir: string): Promise<Dev> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  // the embedded defaults of `make dev`, whatever this shell has set
  for (const k of ["DATABASE_URI", "POSTGRES_URI", "REDIS_URI", "BERTH_API_KEY", "BERTH_AUTH_MODE", "BERTH_FROM_SOURCE", "BERTH_DATA_DIR", "PORT", "HOST", "BERTH_DEPLOY_DEADLINE_SECONDS"]) delete env[k];
  const started = await forkBerth<{ url: string; apiKey: string; integrationId: string }>(["dev", "--port", "0", "--data-dir", dataDir, "--log-level", "warn"], {
    env,
    stdio: ["ignore", "pipe", "inherit", "ipc"],
    execArgv: args["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(args["cpu-prof"])] : [],
  });
  const { child } = started;
  const ready = { url: started.ready.url, apiKey: started.ready.apiKey, integrationId: started.ready.integrationId };
  // stdout stays paused (buffered) until read: nothing logged before readiness is lost
  const errors: string[] = [];
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const lines = (rest + chunk.toString("utf8")).split("\n");
    rest = lines.pop() ?? "";
    for (const l of lines) if (/"level":(50|60)\b/.test(l) || (!l.startsWith("{") && l.trim())) errors.push(l);
  });
  let stopping: ReturnType<Dev["stop"]> | undefined;
  return {
    ...ready,
    child,
    errors,
    stop: () =>
      (stopping ??= new Promise((resolve) => {
        const t0 = performance.now();
        if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode, ms: 0, killed: false });
        let killed = false;
        const timer = setTimeout(() => {
          killed = true;
          child.kill("SIGKILL");
        }, 60_000);
        child.once("exit", (code, signal) => {
          clearTimeout(timer);
          resolve({ code, signal, ms: performance.now() - t0, killed });
        });
        child.kill("SIGTERM");
      })),
  };
}

// ---- the API ---------------------------------------------------------------------------------
interface DeploymentBody {
  id: string;
  name: string;
  status: string;
  latest_revision_id: string;
  active_revision_id: string | null;
  source_config: { custom_url?: string };
}
interface RevisionBody {
  id: string;
  status: string;
  status_reason: string | null;
  created_at: string;
  updated_at: string;
}
interface LogLine {
  timestamp: string;
  level: string;
  message: string;
}

let dev!: Dev;
let devStarted = false;
async function api<T>(method: string, p: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${dev.url}${p}`, {
    method,
    headers: { "x-api-key": dev.apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}
async function must<T>(method: string, p: string, body?: unknown, expected = [200, 201]): Promise<T> {
  const r = await api<T>(method, p, body);
  if (!expected.includes(r.status)) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
const logsOf = async (id: string, rid: string, type: "build" | "deploy") =>
  (await must<{ logs: LogLine[] }>("GET", `/v2/deployments/${id}/revisions/${rid}/logs?type=${type}&limit=1000`)).logs;
/** When the first line matching `re` was logged (ms since the epoch), or NaN. */
function at(logs: LogLine[], re: RegExp): number {
  const line = logs.find((l) => re.test(l.message));
  return line ? Date.parse(line.timestamp) : NaN;
}
async function failure(id: string, rid: string, rev: RevisionBody): Promise<Error> {
  const lines = [...(await logsOf(id, rid, "build")), ...(await logsOf(id, rid, "deploy"))].slice(-15).map((l) => `  ${l.level} ${l.message}`);
  return new Error(`revision ${rid} ended ${rev.status}: ${rev.status_reason ?? ""}\n${lines.join("\n")}`);
}

/** A stateless run of `greet` through the deployment URL: the GREETING it sees. */
async function greeting(url: string): Promise<string> {
  const res = await fetch(`${url}/runs/wait`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "greet", input: {} }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`runs/wait: ${res.status} ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { greeting: string }).greeting;
}

// ---- 1. deploy, 2. secrets-only PATCH --------------------------------------------------------
/** Phases of a revision, in ms, from its logs; `from` is when the request that made it was sent. */
async function phases(id: string, rid: string, from: number) {
  const rev = await must<RevisionBody>("GET", `/v2/deployments/${id}/revisions/${rid}`);
  const build = await logsOf(id, rid, "build");
  const deploy = await logsOf(id, rid, "deploy");
  const t = {
    cloning: at(build, /^cloning /),
    checkedOut: at(build, /^checkout done in /),
    installed: at(build, /^install command done in /),
    swap: at(deploy, /admits one process at a time: stopping revision/),
    starting: at(deploy, /^starting the agent server /),
    healthy: at(deploy, /^healthy after /),
    deployed: Date.parse(rev.updated_at),
  };
  const afterInstall = Number.isNaN(t.swap) ? t.starting : t.swap;
  return {
    queue: t.cloning - from,
    clone: t.checkedOut - t.cloning,
    install: t.installed - t.checkedOut,
    build: afterInstall - t.installed,
    stopOld: Number.isNaN(t.swap) ? NaN : t.starting - t.swap,
    start: t.healthy - t.starting,
    goLive: t.deployed - t.healthy,
    total: t.deployed - from,
    /** the old process stopped → the new one healthy: requests are held by the proxy */
    held: Number.isNaN(t.swap) ? NaN : t.deployed - t.swap,
    healthyLine: deploy.find((l) => /^healthy after /.test(l.message))?.message ?? "",
  };
}
type Phases = Awaited<ReturnType<typeof phases>>;

interface DeploySample {
  post: number;
  phases: Phases;
  waitReturned: number;
  firstRun: number;
}
interface PatchSample {
  patch: number;
  phases: Phases;
  live: number;
  waitReturned: number;
  runs: number;
  runErrors: number;
  longestRun: number;
  deleted: number;
}

async function deployAndPatch(i: number, repoUrl: string, suffix: string): Promise<{ d: DeploySample; p: PatchSample }> {
  const name = `bench-${suffix}-${i}`;
  const before = `hello-${i}`;
  // ---- deploy
  const t0 = Date.now();
  const created = await must<DeploymentBody>("POST", "/v2/deployments", {
    name,
    source: "hosted_git",
    source_config: { integration_id: dev.integrationId, repo_url: repoUrl, install_command: "true" },
    source_revision_config: { repo_ref: "main", agent_config_path: "examples/langgraph.json" },
    secrets: [{ name: "GREETING", value: before }],
  });
  const post = Date.now() - t0;
  const id = created.id;
  const rid = created.latest_revision_id;
  const rev = await must<RevisionBody>("GET", `/v2/deployments/${id}/revisions/${rid}?wait=${WAIT_S}`);
  const waitReturned = Date.now() - t0;
  if (rev.status !== "DEPLOYED") throw await failure(id, rid, rev);
  const url = (await must<DeploymentBody>("GET", `/v2/deployments/${id}`)).source_config.custom_url!;
  const r0 = performance.now();
  const seen = await greeting(url);
  const firstRun = performance.now() - r0;
  if (seen !== before) throw new Error(`${name}: the first run saw GREETING=${seen}, not ${before}`);
  const d: DeploySample = { post, phases: await phases(id, rid, t0), waitReturned, firstRun };

  // ---- secrets-only PATCH, then runs back to back until one sees the new value
  const after = `bonjour-${i}`;
  const p0 = Date.now();
  const patched = await must<DeploymentBody>("PATCH", `/v2/deployments/${id}`, { secrets: [{ name: "GREETING", value: after }] });
  const patch = Date.now() - p0;
  const prid = patched.latest_revision_id;
  if (prid === rid) throw new Error(`${name}: a secrets PATCH made no new revision`);
  const waited = must<RevisionBody>("GET", `/v2/deployments/${id}/revisions/${prid}?wait=${WAIT_S}`).then((r) => ({ r, at: Date.now() }));
  waited.catch(() => undefined);
  let live = NaN;
  let runs = 0;
  let runErrors = 0;
  let longestRun = 0;
  while (Date.now() - p0 < WAIT_S * 1000) {
    const s = performance.now();
    let value: string | undefined;
    try {
      value = await greeting(url);
    } catch {
      runErrors++;
    }
    runs++;
    longestRun = Math.max(longestRun, performance.now() - s);
    if (value === after) {
      live = Date.now() - p0;
      break;
    }
    if (value === undefined) await sleep(50);
  }
  const w = await waited;
  if (w.r.status !== "DEPLOYED") throw await failure(id, prid, w.r);
  if (Number.isNaN(live)) throw new Error(`${name}: GREETING=${after} never seen within ${WAIT_S} s`);
  const pp = await phases(id, prid, p0);

  // ---- delete (the agent server stops), so the next sample has the machine to itself
  const del0 = performance.now();
  await must("DELETE", `/v2/deployments/${id}`, undefined, [204]);
  while ((await api("GET", `/v2/deployments/${id}`)).status !== 404) {
    if (performance.now() - del0 > WAIT_S * 1000) throw new Error(`${name}: still there ${WAIT_S} s after DELETE`);
    await sleep(100);
  }
  const deleted = performance.now() - del0;
  return { d, p: { patch, phases: pp, live, waitReturned: w.at - p0, runs, runErrors, longestRun, deleted } };
}

// ---- 3. API latency under concurrent clients ----------------------------------------------------
type Kind = "list" | "get" | "revisions";
const KINDS: Kind[] = ["list", "get", "revisions"];
const KIND_TEXT: Record<Kind, string> = {
  list: "GET /v2/deployments?limit=20&offset=<random page>",
  get: "GET /v2/deployments/{id}",
  revisions: "GET /v2/deployments/{id}/revisions",
};

async function createLoad(repoUrl: string, suffix: string) {
  const ids: { id: string; rid: string }[] = [];
  const latency: number[] = [];
  const t0 = performance.now();
  const rate = await pool(DEPLOYMENTS, CREATE_CONCURRENCY, async (i) => {
    const s = performance.now();
    const d = await must<DeploymentBody>("POST", "/v2/deployments", {
      name: `load-${suffix}-${i}`,
      source: "hosted_git",
      source_config: { integration_id: dev.integrationId, repo_url: repoUrl, install_command: "exit 1" },
      source_revision_config: { repo_ref: "main", agent_config_path: "examples/langgraph.json" },
      secrets: [{ name: "GREETING", value: `load-${i}` }],
    });
    latency.push(performance.now() - s);
    ids.push({ id: d.id, rid: d.latest_revision_id });
  });
  const created = performance.now() - t0;
  const statuses = new Map<string, number>();
  await pool(ids.length, 10, async (i) => {
    const { id, rid } = ids[i]!;
    const r = await must<RevisionBody>("GET", `/v2/deployments/${id}/revisions/${rid}?wait=${WAIT_S}`);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  });
  const settled = performance.now() - t0;
  let total = 0; // every deployment present, page by page
  for (let page = 100; page === 100; total += page) page = (await must<{ resources: unknown[] }>("GET", `/v2/deployments?limit=100&offset=${total}`)).resources.length;
  return { ids: ids.map((x) => x.id), latency, rate, created, settled, statuses, total };
}

interface Round {
  n: number;
  rps: number;
  errors: number;
  serverCores: number;
  byKind: Map<Kind, number[]>;
}
async function round(clients: number, seconds: number, kinds: Kind[], ids: string[], count: number): Promise<Round> {
  const pages = Math.max(1, Math.floor(count / 20));
  const pathOf = (kind: Kind) => {
    const id = ids[Math.floor(Math.random() * ids.length)]!;
    if (kind === "list") return `/v2/deployments?limit=20&offset=${20 * Math.floor(Math.random() * pages)}`;
    if (kind === "get") return `/v2/deployments/${id}`;
    return `/v2/deployments/${id}/revisions`;
  };
  const byKind = new Map<Kind, number[]>(kinds.map((k) => [k, []]));
  let errors = 0;
  let n = 0;
  const cpu0 = procCpu(dev.child.pid!);
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      let k = c % kinds.length;
      while (performance.now() < end) {
        const kind = kinds[k++ % kinds.length]!;
        const s = performance.now();
        const res = await fetch(`${dev.url}${pathOf(kind)}`, { headers: { "x-api-key": dev.apiKey } });
        await res.arrayBuffer();
        byKind.get(kind)!.push(performance.now() - s);
        if (!res.ok) errors++;
        n++;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  return { n, rps: n / wall, errors, serverCores: (procCpu(dev.child.pid!) - cpu0) / wall, byKind };
}

// ---- main ------------------------------------------------------------------------------------
buildDist();
const began = performance.now();
const scratchRoot = path.join(ROOT, "scratch");
mkdirSync(scratchRoot, { recursive: true });
const dir = mkdtempSync(path.join(scratchRoot, "bench-cp-"));
const suffix = path.basename(dir).slice(-6).toLowerCase().replace(/[^a-z0-9]/g, "x");
console.log(
  `Berth control plane benchmark — berth dev (embedded PGlite) from a fresh dist/ build, ${DEPLOYS} deploys + ${DEPLOYS} secret PATCHes, ` +
    `${DEPLOYMENTS} deployments × ${CLIENTS} clients × ${SECONDS} s per endpoint; ${os.cpus().length} cores, node ${process.version}`,
);
console.log(
  `(a shared machine: this client, berth dev, git and the agent servers compete for the same ${os.cpus().length} cores, so figures vary with load)\n`,
);

let exitCode = 0;
try {
  const repo = createExampleRepo(path.join(dir, "repo"));
  const d0 = performance.now();
  dev = await startDev(path.join(dir, ".berth"));
  devStarted = true;
  const devStart = performance.now() - d0;
  console.log(`berth dev ready in ${s2(devStart)} s at ${dev.url} (pid ${dev.child.pid}); example repo ${repo.url} at ${repo.head.slice(0, 8)}\n`);

  // ---- deploys and secret PATCHes
  const deploys: DeploySample[] = [];
  const patches: PatchSample[] = [];
  for (let i = 0; i < DEPLOYS; i++) {
    const { d, p } = await deployAndPatch(i, repo.url, suffix);
    deploys.push(d);
    patches.push(p);
    console.log(
      `  #${i + 1}: deployed in ${s2(d.phases.total)} s (start ${s2(d.phases.start)} s), secret live after ${s2(p.live)} s ` +
        `(${p.runs} runs, ${p.runErrors} failed, longest ${s2(p.longestRun)} s), deleted in ${s2(p.deleted)} s`,
    );
  }
  console.log();
  const col = <T>(xs: T[], get: (x: T) => number) => xs.map(get).filter((x) => Number.isFinite(x));
  const stat = <T>(xs: T[], get: (x: T) => number) => {
    const v = col(xs, get);
    return [s2(pct(v, 50)), s2(max(v))];
  };
  console.log(`## POST /v2/deployments → DEPLOYED, the example agents (chat, approval, greet), install_command "true"; N=${DEPLOYS}, a fresh deployment each`);
  table(
    ["phase", "p50 (s)", "max (s)", "from → to (deploy/build log lines; DEPLOYED = the revision's updated_at)"],
    [
      ["POST /v2/deployments (201)", ...stat(deploys, (d) => d.post), "the request alone"],
      ["queue", ...stat(deploys, (d) => d.phases.queue), "POST sent → \"cloning …\" (QUEUED → AWAITING_BUILD → BUILDING, the deployment's proxy)"],
      ["clone", ...stat(deploys, (d) => d.phases.clone), "\"cloning …\" → \"checkout done\" (git clone --depth 1 file://)"],
      ["install", ...stat(deploys, (d) => d.phases.install), "\"checkout done\" → \"install command done\" (install_command \"true\")"],
      ["build", ...stat(deploys, (d) => d.phases.build), "→ \"starting the agent server\": no build_command, so AWAITING_DEPLOY + DEPLOYING status writes only"],
      ["start", ...stat(deploys, (d) => d.phases.start), "→ \"healthy after\": spawn berth serve, load the graphs, /ok (polled every 200 ms)"],
      ["go-live", ...stat(deploys, (d) => d.phases.goLive), "→ DEPLOYED: the proxy switches, the status is written"],
      ["total: POST → DEPLOYED", ...stat(deploys, (d) => d.phases.total), "server side"],
      ["POST → ?wait returned DEPLOYED", ...stat(deploys, (d) => d.waitReturned), "what a client sees (?wait re-reads the revision every 250 ms)"],
      ["first run after DEPLOYED", ...stat(deploys, (d) => d.firstRun), "POST /runs/wait (greet) through the deployment URL"],
    ],
  );
  console.log(`(start as the deployer logged it: ${deploys.map((d) => d.phases.healthyLine.replace(/ at http.*/, "")).join("; ")})\n`);

  console.log(`## Secrets-only PATCH (GREETING changes) → a run returns the new value; N=${DEPLOYS}, on each deployment above once DEPLOYED`);
  table(
    ["phase", "p50 (s)", "max (s)", "note"],
    [
      ["PATCH /v2/deployments/{id} (200)", ...stat(patches, (p) => p.patch), "the request alone (a new revision)"],
      ["queue", ...stat(patches, (p) => p.phases.queue), "PATCH sent → \"cloning …\""],
      ["clone", ...stat(patches, (p) => p.phases.clone), "a secrets-only revision is checked out again"],
      ["install", ...stat(patches, (p) => p.phases.install), "… and installed again (\"true\" here; a real install would repeat in full)"],
      ["build", ...stat(patches, (p) => p.phases.build), "install done → the swap starts"],
      ["stop old (PGlite swap)", ...stat(patches, (p) => p.phases.stopOld), "the old agent server is stopped (SIGTERM, graceful) before the new one starts"],
      ["start", ...stat(patches, (p) => p.phases.start), "the new berth serve: spawn → /ok"],
      ["go-live", ...stat(patches, (p) => p.phases.goLive), "→ DEPLOYED"],
      ["revision: PATCH → DEPLOYED", ...stat(patches, (p) => p.phases.total), "server side (updated_at)"],
      ["PATCH → ?wait returned DEPLOYED", ...stat(patches, (p) => p.waitReturned), "client side"],
      ["PATCH → new value live", ...stat(patches, (p) => p.live), "runs sent back to back through the deployment URL until one returns it"],
      ["requests held (old stopped → DEPLOYED)", ...stat(patches, (p) => p.phases.held), "the deployment serves nothing meanwhile; the proxy holds requests"],
      ["longest single run meanwhile", ...stat(patches, (p) => p.longestRun), `${patches.reduce((a, p) => a + p.runs, 0)} runs, ${patches.reduce((a, p) => a + p.runErrors, 0)} failed`],
      ["DELETE → 404", ...stat(patches, (p) => p.deleted), "the deployment torn down (agent server stopped)"],
    ],
  );
  console.log();

  // ---- API latency
  const load = await createLoad(repo.url, suffix);
  const statusText = [...load.statuses].map(([s, n]) => `${n}× ${s}`).join(", ");
  console.log(
    `## Control plane API: ${load.total} deployments present (hosted_git, install_command "exit 1": ${statusText}); ` +
      `created at ${CREATE_CONCURRENCY} concurrent in ${s2(load.created)} s (${f(load.rate, 0)}/s, POST p50 ${f(pct(load.latency, 50), 0)} ms, ` +
      `p99 ${f(pct(load.latency, 99), 0)} ms), all builds failed ${s2(load.settled)} s after the first POST; berth dev RSS ${f(await rssMb(dev.child.pid!), 0)} MB`,
  );
  for (const kind of KINDS) await round(4, 0.5, [kind], load.ids, load.total); // warm-up
  const solo = new Map<Kind, Round>();
  for (const kind of KINDS) solo.set(kind, await round(1, 2, [kind], load.ids, load.total));
  const alone = new Map<Kind, Round>();
  for (const kind of KINDS) alone.set(kind, await round(CLIENTS, SECONDS, [kind], load.ids, load.total));
  const mixed = await round(CLIENTS, SECONDS, KINDS, load.ids, load.total);
  const rows: string[][] = [];
  for (const kind of KINDS) {
    const one = solo.get(kind)!.byKind.get(kind)!;
    const r = alone.get(kind)!;
    const lat = r.byKind.get(kind)!;
    const m = mixed.byKind.get(kind)!;
    rows.push([
      KIND_TEXT[kind],
      f(pct(one, 50), 1),
      f(pct(lat, 50), 1),
      f(pct(lat, 99), 1),
      int(r.rps),
      f(r.serverCores, 2),
      f(pct(m, 50), 1),
      f(pct(m, 99), 1),
      `${r.errors ? `${r.errors} errors; ` : ""}c=1: ${int(solo.get(kind)!.rps)} req/s`,
    ]);
  }
  rows.push(["all three (mixed round)", "", "", "", "", "", "", "", `${int(mixed.rps)} req/s total, berth dev ${f(mixed.serverCores, 2)} cores busy${mixed.errors ? `, ${mixed.errors} errors` : ""}`]);
  table(
    ["endpoint", "c=1 p50 (ms)", `c=${CLIENTS} p50 (ms)`, `c=${CLIENTS} p99 (ms)`, `c=${CLIENTS} req/s`, "berth dev cores", "mixed p50 (ms)", "mixed p99 (ms)", "note"],
    rows,
  );
  console.log(
    `(each endpoint alone for ${SECONDS} s at ${CLIENTS} clients, then all three interleaved by every client for ${SECONDS} s; latency is ` +
      `request sent → body read by this client, which shares the cores; "berth dev cores" = its CPU seconds ÷ wall seconds)\n`,
  );
} catch (err) {
  exitCode = 1;
  console.error(err);
} finally {
  // ---- clean up: berth dev stops its deployments (their proxies and agent servers) on SIGTERM
  if (devStarted) {
    const stopped = await dev.stop();
    console.log(
      `berth dev stopped in ${s2(stopped.ms)} s (${stopped.killed ? "SIGKILL after 60 s" : `SIGTERM, exit ${stopped.code ?? stopped.signal}`})` +
        (dev.errors.length ? `; ${dev.errors.length} error lines in its log, first: ${dev.errors.slice(0, 3).join(" / ").slice(0, 600)}` : "; no errors in its log"),
    );
  }
  await sleep(200);
  const left = processesIn(dir);
  for (const p of left) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(
    left.length
      ? `✗ ${left.length} processes were left behind (killed): ${left.map((p) => `${p.pid} ${p.cmd.slice(0, 120)}`).join("; ")}`
      : `no processes left behind ✓; ${path.relative(ROOT, dir)} removed`,
  );
  console.log(`\n(total ${f((performance.now() - began) / 1000, 0)} s)`);
}
process.exit(exitCode);
