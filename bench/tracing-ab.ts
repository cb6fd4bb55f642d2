/**
 * Two builds of the tracing ingest, A and B, on the same captured requests, taking turns round by
 * round on one machine: the before/after comparison for a change to the ingest.
 *
 * bench/tracing-replay.ts run once per build drifted too much for that: on the 2-core machine its
 * rounds of one build spread ±10%, and runs minutes apart differ by as much, so a change worth 5%
 * could not be told from noise. Here both servers are started and warmed up together, each round
 * sends the same requests (ids rewritten per round) to A and then to B, in the other order the next
 * round, and each round's ratio B/A is taken from two measurements seconds apart. The headline is the
 * median round's ratio of runs/s and of the server's CPU per run.
 *
 * Usage: node --import tsx bench/tracing-ab.ts --load FILE --b OTHER/bin/berth.js [--a bin/berth.js]
 *        [--rounds 8] [--concurrency 5]
 * FILE is a capture written by bench/tracing-replay.ts --save. A build outside dist/ is a copy of
 * bin/, dist/ and package.json (with node_modules beside it, or inside this checkout); A defaults to
 * this checkout's build (build it first: npx tsc -p tsconfig.build.json).
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { execSync } from "node:child_process";
import { median, printTable } from "./lib.js";
import { cpuUsed, freshState, loadCapture, merged, rewriteIds, sendAll } from "./tracing-workload.js";

const { values: args } = parseArgs({
  options: {
    load: { type: "string" },
    a: { type: "string", default: path.join(import.meta.dirname, "../bin/berth.js") },
    b: { type: "string" },
    rounds: { type: "string", default: "8" },
    concurrency: { type: "string", default: "5" },
  },
});
if (!args.load || !args.b) throw new Error("usage: bench/tracing-ab.ts --load FILE --b OTHER/bin/berth.js [--a bin/berth.js] [--rounds 8] [--concurrency 5]");
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const saved = loadCapture(args.load);
const runs = saved.runs;
const uptime = () => execSync("uptime").toString().trim().replace(/^.*load average: /, "");

const build = async (name: string, bin: string) => ({ name, bin: path.resolve(bin), state: await freshState([], {}, path.resolve(bin)) });
const builds = [await build("A", args.a!), await build("B", args.b)];
const f = (n: number, d = 0) => n.toFixed(d);
try {
  // warm-up of both: JIT, connections, prepared statements, caches
  for (const b of builds) {
    await sendAll(b.state.server.url, rewriteIds(saved.warmup, 0xffff), CONCURRENCY);
    await sendAll(b.state.server.url, rewriteIds(saved.measured, 0xfffe), CONCURRENCY);
    await merged(b.state.server.url);
  }
  const rows: string[][] = [];
  const speed: number[] = [];
  const cpu: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const requests = rewriteIds(saved.measured, round);
    const figures = new Map<string, { rate: number; server: number; postgres: number }>();
    for (const b of round % 2 ? builds : [...builds].reverse()) {
      const before = await b.state.cpu();
      const t0 = performance.now();
      await sendAll(b.state.server.url, requests, CONCURRENCY);
      await merged(b.state.server.url);
      const seconds = (performance.now() - t0) / 1000;
      const used = cpuUsed(before, await b.state.cpu());
      figures.set(b.name, { rate: runs / seconds, server: (1e6 * used.server) / runs, postgres: (1e6 * used.postgres) / runs });
    }
    const [a, b] = [figures.get("A")!, figures.get("B")!];
    speed.push(b.rate / a.rate);
    cpu.push(b.server / a.server);
    rows.push([`round ${round} (${round % 2 ? "A first" : "B first"})`, f(a.rate), f(b.rate), f(b.rate / a.rate, 3), f(a.server), f(b.server), f(b.server / a.server, 3), f(a.postgres), f(b.postgres), uptime()]);
  }
  console.log(`## tracing ingest A/B: ${runs} runs × ${ROUNDS} rounds in ${saved.measured.length} requests (${saved.workload}), c=${CONCURRENCY}; A ${builds[0]!.bin}, B ${builds[1]!.bin}`);
  printTable(["", "A runs/s", "B runs/s", "B/A runs/s", "A server µs/run", "B server µs/run", "B/A server CPU", "A pg µs/run", "B pg µs/run", "load"], rows);
  console.log(`B/A: runs/s ${f(median(speed), 3)} (median round; ${f(Math.min(...speed), 3)}–${f(Math.max(...speed), 3)}), server CPU per run ${f(median(cpu), 3)} (${f(Math.min(...cpu), 3)}–${f(Math.max(...cpu), 3)})`);
} finally {
  for (const b of builds) await b.state.close();
}
process.exit(0);
