/**
 * A .cpuprofile's top frames, as text: self time by package or file, by function, and inclusive
 * time of the project's own functions. With --window, only the samples inside it: a JSON file
 * {from, to} in the monotonic clock's microseconds, the profile's own clock (bench/tracing-replay.ts
 * writes one for its measured rounds).
 * Usage: node --import tsx bench/cpuprofile-top.ts FILE.cpuprofile [--top 30] [--window FILE.json]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "30" }, window: { type: "string" } } });
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
const selfByFn = new Map<string, number>();
const selfByFile = new Map<string, number>();
const inclusive = new Map<string, number>();
let busy = 0;
let idleTime = 0;
for (let i = start; i < end; i++) {
  const dt = (times[i + 1] ?? times[i]!) - times[i]!;
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
const ms = (us: number) => (us / 1000).toFixed(0).padStart(6);
const pc = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const list = (title: string, m: Map<string, number>, n: number) => {
  console.log(`-- ${title}`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${ms(v)} ms ${pc(v)}  ${k}`);
};
console.log(`window ${((times[end - 1]! - times[start]!) / 1e6).toFixed(2)} s: busy ${ms(busy)} ms, idle ${ms(idleTime)} ms${args.window ? ` (${args.window})` : " (the whole profile)"}`);
list("self time by package / file", selfByFile, Number(process.env.TOP_FILES ?? 20));
list("self time by function", selfByFn, top);
list("inclusive time (project code)", inclusive, top);
