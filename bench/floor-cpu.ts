/**
 * The floor's CPU per run (issue 16): the chat example graph invoked in-process with Berth's
 * Postgres checkpointer, as bench/agent-server.ts's floor does, at concurrency C, with the
 * process's CPU time per run. Run under `node --cpu-prof --cpu-prof-dir DIR --import tsx` to
 * compare its profile with the server's (bench/agent-server-roundtrips.ts PROF_DIR=…); the
 * measured part's window goes to DIR/window.json for bench/cpuprofile-top.ts --window.
 * On Postgres the CPU of the database's backends in the window is printed too (from /proc).
 * Usage: node --import tsx bench/floor-cpu.ts [postgres|pglite] [C=1] [N=300]   (PROF_DIR=dir)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { backendMsSince, backendTicks, floorChat, pool } from "./lib.js";

const backend = (process.argv[2] ?? "postgres") as "postgres" | "pglite";
const conc = Number(process.argv[3] ?? 1);
const n = Number(process.argv[4] ?? 300);

const { once, close, uri } = await floorChat(backend);
await pool(50, Math.min(conc, 10), once); // warm-up
const load0 = os.loadavg()[0]!;
const from = process.hrtime.bigint() / 1000n;
const backends0 = await backendTicks(uri);
const cpu0 = process.cpuUsage();
const rps = await pool(n, conc, once);
const cpu = process.cpuUsage(cpu0);
const backendMs = backendMsSince(backends0, await backendTicks(uri));
if (process.env.PROF_DIR) fs.writeFileSync(path.join(process.env.PROF_DIR, "window.json"), JSON.stringify({ from: Number(from), to: Number(process.hrtime.bigint() / 1000n) }));
await close();
console.log(
  `floor ${backend} c=${conc} n=${n}: ${rps.toFixed(1)} runs/s, load ${load0.toFixed(1)}->${os.loadavg()[0]!.toFixed(1)}, ` +
    `CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms/run (user ${(cpu.user / 1000 / n).toFixed(2)}, sys ${(cpu.system / 1000 / n).toFixed(2)}) — this process, client side included` +
    (uri ? `; Postgres backends ${(backendMs / n).toFixed(2)} ms/run` : ""),
);
process.exit(0);
