// Preload for `berth serve` (bench/agent-server-roundtrips.ts): counts pg queries (by statement name or text) and Redis
// commands, and the process CPU since start or the last SIGUSR2; writes them to $COUNT_FILE on exit.
import { createRequire } from "node:module";
import fs from "node:fs";
const require = createRequire(import.meta.url); // pg and ioredis as the server resolves them (this repo's node_modules)
const pg = require("pg");
const counts = new Map(); const bump = (k) => counts.set(k, (counts.get(k) ?? 0) + 1);
const origQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === "string" ? config : config?.text ?? "?";
  const name = typeof config === "object" && config?.name ? config.name : text.replace(/\s+/g, " ").slice(0, 90);
  bump("pg " + name);
  return origQuery.call(this, config, ...rest);
};
try {
  const Redis = require("ioredis");
  const R = Redis.default ?? Redis;
  const orig = R.prototype.sendCommand;
  R.prototype.sendCommand = function (cmd, ...rest) { bump("redis " + cmd.name + (cmd.name === "publish" ? " " + String(cmd.args?.[1] ?? "").slice(0, 20) : "")); return orig.call(this, cmd, ...rest); };
} catch {}
let reset = process.cpuUsage();
process.on("SIGUSR2", () => { counts.clear(); reset = process.cpuUsage(); });
process.on("exit", () => {
  const cpu = process.cpuUsage(reset);
  const lines = [`cpu user ${(cpu.user / 1000).toFixed(0)} ms system ${(cpu.system / 1000).toFixed(0)} ms`];
  for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) lines.push(`${String(v).padStart(7)} ${k}`);
  if (process.env.COUNT_FILE) fs.writeFileSync(process.env.COUNT_FILE, lines.join("\n") + "\n");
});
