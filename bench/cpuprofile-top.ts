/**
 * A .cpuprofile's top frames, as text: self time by package or file, by function, and inclusive
 * time of the project's own functions. With --window, only the samples inside it: a JSON file
 * {from, to} in the monotonic clock's microseconds, the profile's own clock (bench/tracing-replay.ts
 * writes one for its measured rounds).
 *
 * --weight samples counts each sample as the profile's median interval instead of the time to the
 * next sample. On a loaded machine the time to the next sample includes the time the thread was
 * descheduled, which the default (time) charges to whatever was on the stack then: at load 10 a
 * promise executor in @langchain/core showed 0.39 ms per run by time and 0.05 by samples.
 * --runs N divides every figure by N (ms per run), and adds "self time by owner": each sample
 * charged to the nearest frame up its stack that belongs to a known area (Berth's modules, express
 * and node's http, pg, Redis, LangGraph), so library work a Berth path causes (node's socket writes
 * under express's res.json, say) is counted against that path.
 * Usage: node --import tsx bench/cpuprofile-top.ts FILE.cpuprofile [--top 30] [--window FILE.json] [--weight samples] [--runs N]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "30" }, window: { type: "string" }, weight: { type: "string", default: "time" }, runs: { type: "string", default: "0" } } });
const profile = JSON.parse(readFileSync(positionals[0]!, "utf8")) as { nodes: Node[]; startTime: number; samples: number[]; timeDeltas: number[] };
const top = Number(args.top);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
let t = profile.startTime;
const times = profile.timeDeltas.map((d) => (t += d));

// the window: the monotonic clock's microseconds (the profile's own clock) of the measured part
let start = 0;
let end = profile.samples.length;
if (args.window) {
  const { from, to } = JSON.parse(readFileSync(args.window, "utf8")) as { from: number; to: number };
  start = times.findIndex((x) => x >= from);
  end = times.findIndex((x) => x > to);
  if (start < 0) throw new Error(`the profile ends before the window starts`);
  if (end < 0) end = profile.samples.length;
}
const short = (url: string) => url.replace(/^.*\/node_modules\//, "node_modules/").replace(/^.*\/(dist|src)\//, "$1/");
const bySamples = args.weight === "samples";
if (!bySamples && args.weight !== "time") throw new Error(`--weight is time or samples, not ${args.weight}`);
const median = [...profile.timeDeltas].sort((a, b) => a - b)[profile.timeDeltas.length >> 1] ?? 0;
const runs = Number(args.runs);
/** The nearest area up a sample's stack; the first rule that matches a frame's URL names it. */
const OWNERS: [RegExp, string][] = [
  [/node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//, "pg"],
  [/node_modules\/ioredis\//, "redis"],
  [/node_modules\/(express|router|body-parser|raw-body|finalhandler|send|qs|type-is|content-type|on-finished|media-typer|mime-types|iconv-lite)\//, "http: express"],
  [/\/(dist|src)\/shared\/(http|local-access)\.|\/(dist|src)\/agent-server\/(auth|api)\//, "http: Berth's routing, guards, auth, handlers"],
  [/^node:(_http|internal\/http|http)/, "http: node"],
  [/node_modules\/zod\//, "zod"],
  [/node_modules\/(@langchain|langsmith)\//, "LangGraph / LangChain"],
  [/\/(dist|src)\/agent-server\/(checkpointer|checkpoint-writes|serde)\./, "Berth: checkpointer, serde"],
  [/\/(dist|src)\/agent-server\/(queue\/emitter|storage\/events|runs\/(stream|unstored|channels))\.|\/(dist|src)\/shared\/bus\//, "Berth: stream events, bus"],
  [/\/(dist|src)\/agent-server\/(queue|runs|storage)\//, "Berth: runs, queue, storage"],
  [/\/(dist|src)\//, "Berth: other"],
];
const ownerOf = (id: number): string => {
  for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
    const url = byId.get(x)!.callFrame.url;
    for (const [re, owner] of OWNERS) if (re.test(url)) return owner;
  }
  return "(no owner: node internals, microtasks)";
};
/** V8's own entries (no JavaScript frame under them). */
const V8_ENTRIES = new Set(["(garbage collector)", "(program)", "(root)"]);
const selfByOwner = new Map<string, number>();
const selfByFn = new Map<string, number>();
const selfByFile = new Map<string, number>();
const inclusive = new Map<string, number>();
let busy = 0;
let idleTime = 0;
for (let i = start; i < end; i++) {
  const dt = bySamples ? median : (times[i + 1] ?? times[i]!) - times[i]!;
  const node = byId.get(profile.samples[i]!)!;
  const name = node.callFrame.functionName || "(anonymous)";
  if (name === "(idle)") {
    idleTime += dt;
    continue;
  }
  busy += dt;
  const url = short(node.callFrame.url);
  const fn = `${name} ${url}:${node.callFrame.lineNumber + 1}`;
  selfByFn.set(fn, (selfByFn.get(fn) ?? 0) + dt);
  const file = name.startsWith("(") ? name : url.replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*/, "$1") || "(native)";
  selfByFile.set(file, (selfByFile.get(file) ?? 0) + dt);
  const owner = V8_ENTRIES.has(name) ? name : ownerOf(node.id);
  selfByOwner.set(owner, (selfByOwner.get(owner) ?? 0) + dt);
  const seen = new Set<string>();
  for (let x: number | undefined = node.id; x !== undefined; x = parent.get(x)) {
    const f = byId.get(x)!.callFrame;
    const u = short(f.url);
    if (!/^(dist|src)\//.test(u)) continue;
    const key = `${f.functionName || "(anonymous)"} ${u}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
  }
}
const ms = (us: number) => (runs ? `${(us / 1000 / runs).toFixed(3).padStart(7)} ms/run` : `${(us / 1000).toFixed(0).padStart(6)} ms`);
const pc = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const list = (title: string, m: Map<string, number>, n: number) => {
  console.log(`-- ${title}`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${ms(v)} ${pc(v)}  ${k}`);
};
console.log(
  `window ${((times[end - 1]! - times[start]!) / 1e6).toFixed(2)} s: busy ${ms(busy)}, idle ${ms(idleTime)}${args.window ? ` (${args.window})` : " (the whole profile)"}` +
    `, weighted by ${bySamples ? `samples (median interval ${median} µs)` : "time to the next sample"}`,
);
if (runs) list("self time by owner (the nearest known area up the stack)", selfByOwner, 20);
list("self time by package / file", selfByFile, Number(process.env.TOP_FILES ?? 20));
list("self time by function", selfByFn, top);
list("inclusive time (project code)", inclusive, top);
