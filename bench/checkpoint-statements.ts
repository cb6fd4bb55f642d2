/**
 * Postgres's CPU per checkpointer write (issue 16): the statements of checkpoint-writes.ts (a
 * checkpoint with three channel values, a task's two writes) sent N times each on one connection,
 * unnamed (parsed and planned every time) and named (prepared once), in alternating rounds; the
 * backend's CPU from /proc (Postgres must run on this machine) and this process's CPU.
 * Usage: node --import tsx bench/checkpoint-statements.ts [N=3000] [ROUNDS=6]
 */
import os from "node:os";
import { randomUUID } from "node:crypto";
import { checkpointBackend } from "./lib.js";
import { putCheckpointStatement, putWritesStatement } from "../src/agent-server/checkpoint-writes.js";

const n = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 6);
const { db, client: c, ticks: backendTicks } = await checkpointBackend();
const checkpoint = { v: 4, id: "x", ts: "now", channel_values: {}, channel_versions: { messages: "1" }, versions_seen: {} };
for (let round = 0; round < rounds; round++) {
  for (const named of [false, true]) {
    const t0 = backendTicks();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const t = randomUUID();
      await c.query(
        putCheckpointStatement(
          "public",
          { threadId: t, ns: "", id: randomUUID(), parentId: undefined, checkpoint, metadata: { source: "loop", step: 1, run_id: t } },
          [
            [t, "", "messages", "1", "json", Buffer.from('[{"content":"hello"}]')],
            [t, "", "__start__", "1", "empty", undefined],
            [t, "", "branch:to:agent", "1", "empty", undefined],
          ],
          named,
        ),
      );
      const id = randomUUID();
      const writes = putWritesStatement("public", [[t, "", id, "task", 0, "messages", "json", Buffer.from("[1]")], [t, "", id, "task", 1, "note", "json", Buffer.from("[2]")]], false, named);
      await c.query(writes!);
    }
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `round ${round} ${named ? "named  " : "unnamed"}: Postgres backend ${(((backendTicks() - t0) * 10 * 1000) / n / 2).toFixed(0)} µs/statement, ` +
        `client ${((cpu.user + cpu.system) / n / 2).toFixed(0)} µs/statement, load ${os.loadavg()[0]!.toFixed(1)}`,
    );
  }
}
await c.end();
await db.drop();
