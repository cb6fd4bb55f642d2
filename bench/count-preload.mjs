// Preload for `berth serve` (bench/agent-server-roundtrips.ts): counts pg queries (by statement name or text) and Redis
// commands, and the process CPU since start or the last SIGUSR2; writes them to $COUNT_FILE on exit. With
// QUERY_TIMES=1, also each pg statement's median time from send to result (the client's view: round trip,
// Postgres's work and commit, queueing in the pool's connection).
// The CPU is also split between the main thread and the others (V8's platform workers: TurboFan's
// concurrent compiles, parallel scavenges, concurrent marking), from /proc/self/task (Linux).
import { createRequire } from "node:module";
import fs from "node:fs";
const require = createRequire(import.meta.url); // pg and ioredis as the server resolves them (this repo's node_modules)
const pg = require("pg");
const counts = new Map(); const bump = (k) => counts.set(k, (counts.get(k) ?? 0) + 1);
const times = new Map(); const names = new Map(); const timed = process.env.QUERY_TIMES === "1";
const origQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === "string" ? config : config?.text ?? "?";
  // (names cached by text: the regex on every query was ~2 % of the server's main thread at c=50)
  const name = typeof config === "object" && config?.name ? config.name : (names.get(text) ?? names.set(text, text.replace(/\s+/g, " ").slice(0, 90)).get(text));
  bump("pg " + name);
  if (!timed) return origQuery.call(this, config, ...rest);
  const t0 = performance.now();
  const record = () => { const list = times.get("pg " + name) ?? []; list.push(performance.now() - t0); times.set("pg " + name, list); };
  // pg.Pool passes a callback (last argument); direct callers get a promise
  const last = rest.length ? rest[rest.length - 1] : undefined;
  if (typeof last === "function") rest[rest.length - 1] = (...a) => { record(); return last(...a); };
  const result = origQuery.call(this, config, ...rest);
  if (typeof last !== "function" && result && typeof result.then === "function") result.then(record, () => undefined);
  return result;
};
try {
  const Redis = require("ioredis");
  const R = Redis.default ?? Redis;
  const orig = R.prototype.sendCommand;
  R.prototype.sendCommand = function (cmd, ...rest) { bump("redis " + cmd.name + (cmd.name === "publish" ? " " + String(cmd.args?.[1] ?? "").slice(0, 20) : "")); return orig.call(this, cmd, ...rest); };
} catch {}
/** CPU ticks (user + system, 1/100 s) of the main thread and of all the others; undefined off Linux. */
const threadTicks = () => {
  try {
    let main = 0, other = 0;
    const byTid = new Map();
    for (const tid of fs.readdirSync("/proc/self/task")) {
      let stat;
      try { stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8"); } catch { continue; } // (a thread that just ended)
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // (the name may hold spaces)
      const ticks = Number(f[11]) + Number(f[12]); // utime, stime
      if (tid === String(process.pid)) main += ticks; else { other += ticks; byTid.set(tid, ticks); }
    }
    return { main, other, byTid };
  } catch { return undefined; }
};
let reset = process.cpuUsage();
let resetThreads = threadTicks();
process.on("SIGUSR2", () => { counts.clear(); times.clear(); reset = process.cpuUsage(); resetThreads = threadTicks(); });
// The window ends at SIGTERM (the bench's stop): the PGlite thread ends during shutdown, and an ended
// thread's ticks are no longer listed under /proc/self/task (only folded into the process's total).
let end;
process.on("SIGTERM", () => { end ??= { cpu: process.cpuUsage(reset), t: threadTicks() }; });
process.on("exit", () => {
  const cpu = end?.cpu ?? process.cpuUsage(reset);
  const t = end?.t ?? threadTicks();
  // the busiest other thread: on PGlite, the database's worker thread (embedded-thread.ts)
  // (per thread: a thread that ended since the reset took its ticks with it, and must not count negative)
  const deltas = t && resetThreads ? [...t.byTid].map(([tid, v]) => v - (resetThreads.byTid.get(tid) ?? 0)) : [];
  const busiest = Math.max(0, ...deltas);
  const other = deltas.reduce((a, b) => a + b, 0);
  const split = t && resetThreads ? ` main ${(t.main - resetThreads.main) * 10} ms other ${other * 10} ms busiest ${busiest * 10} ms` : "";
  const lines = [`cpu user ${(cpu.user / 1000).toFixed(0)} ms system ${(cpu.system / 1000).toFixed(0)} ms${split}`];
  const median = (k) => { const xs = [...(times.get(k) ?? [])].sort((a, b) => a - b); return xs.length ? ` [median ${xs[Math.floor(xs.length / 2)].toFixed(2)} ms]` : ""; };
  for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) lines.push(`${String(v).padStart(7)}${median(k)} ${k}`);
  if (process.env.COUNT_FILE) fs.writeFileSync(process.env.COUNT_FILE, lines.join("\n") + "\n");
});
