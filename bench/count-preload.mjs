// Preload for `berth serve` (bench/agent-server-roundtrips.ts): counts pg queries (by statement name or text) and Redis
// commands, and the process CPU since start or the last SIGUSR2; writes them to $COUNT_FILE on exit. With
// QUERY_TIMES=1, also each pg statement's median time from send to result (the client's view: round trip,
// Postgres's work and commit, queueing in the pool's connection).
import { createRequire } from "node:module";
import fs from "node:fs";
const require = createRequire(import.meta.url); // pg and ioredis as the server resolves them (this repo's node_modules)
const pg = require("pg");
const counts = new Map(); const bump = (k) => counts.set(k, (counts.get(k) ?? 0) + 1);
const times = new Map(); const timed = process.env.QUERY_TIMES === "1";
const origQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === "string" ? config : config?.text ?? "?";
  const name = typeof config === "object" && config?.name ? config.name : text.replace(/\s+/g, " ").slice(0, 90);
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
let reset = process.cpuUsage();
process.on("SIGUSR2", () => { counts.clear(); times.clear(); reset = process.cpuUsage(); });
process.on("exit", () => {
  const cpu = process.cpuUsage(reset);
  const lines = [`cpu user ${(cpu.user / 1000).toFixed(0)} ms system ${(cpu.system / 1000).toFixed(0)} ms`];
  const median = (k) => { const xs = [...(times.get(k) ?? [])].sort((a, b) => a - b); return xs.length ? ` [median ${xs[Math.floor(xs.length / 2)].toFixed(2)} ms]` : ""; };
  for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) lines.push(`${String(v).padStart(7)}${median(k)} ${k}`);
  if (process.env.COUNT_FILE) fs.writeFileSync(process.env.COUNT_FILE, lines.join("\n") + "\n");
});
