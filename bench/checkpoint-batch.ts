/**
 * Postgres's and this process's CPU for one short run's checkpoint writes (issue 16): three
 * checkpoints with two channel values each and two tasks' writes, sent as five named statements
 * (each its own commit: what the saver does without write-behind) against one batch statement
 * (checkpoint-batch.ts: what checkpoint-write-behind.ts and the run's finish send), alternating
 * rounds on one connection; the backend's CPU from /proc (Postgres must run on this machine).
 * Usage: node --import tsx bench/checkpoint-batch.ts [N=1000] [ROUNDS=4]
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { checkpointBackend } from "./lib.js";
import { putCheckpointStatement, putWritesStatement, type BlobRow, type WriteRow } from "../src/agent-server/checkpoint-writes.js";
import { batchStatementText, batchValues, type CheckpointWrite } from "../src/agent-server/checkpoint-batch.js";
const n = Number(process.argv[2] ?? 1000), rounds = Number(process.argv[3] ?? 4);
const { db, client: c, ticks } = await checkpointBackend();
const msg = Buffer.from(JSON.stringify([{ lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "hello there", id: randomUUID() } }]));
function writesFor(t: string): CheckpointWrite[] {
  const out: CheckpointWrite[] = [];
  for (let k = 0; k < 3; k++) {
    const id = randomUUID();
    const ck = JSON.stringify({ v: 4, id, ts: new Date().toISOString(), channel_versions: { messages: `${k}.abc`, __start__: `${k}.x` }, versions_seen: { agent: { x: "1" } } });
    const blobs: BlobRow[] = [[t, "", "messages", `${k}.abc`, "json", msg], [t, "", "__start__", `${k}.x`, "empty", undefined]];
    out.push({ kind: "checkpoint", threadId: t, ns: "", id, parentId: k ? "p" : undefined, checkpoint: ck, metadata: JSON.stringify({ source: "loop", step: k, run_id: t, graph_id: "chat" }), blobs });
    if (k < 2) out.push({ kind: "writes", upsert: false, rows: [[t, "", id, "task" + k, 0, "messages", "json", msg], [t, "", id, "task" + k, 1, "branch:to:agent", "empty", Buffer.alloc(0)]] as WriteRow[] });
  }
  return out;
}
const text = batchStatementText("public", false);
for (let r = 0; r < rounds; r++) {
  for (const mode of ["single", "batch"]) {
    const t0 = ticks(), c0 = process.cpuUsage(), w0 = Date.now();
    for (let i = 0; i < n; i++) {
      const ws = writesFor(randomUUID());
      if (mode === "batch") await c.query({ name: "b", text, values: batchValues(ws).values });
      else for (const w of ws) {
        if (w.kind === "checkpoint") await c.query(putCheckpointStatement("public", { threadId: w.threadId, ns: w.ns, id: w.id, parentId: w.parentId, checkpoint: JSON.parse(w.checkpoint), metadata: JSON.parse(w.metadata) }, w.blobs, true));
        else await c.query(putWritesStatement("public", w.rows, w.upsert, true)!);
      }
    }
    const pgMs = ((ticks() - t0) * 10) / n, cpu = process.cpuUsage(c0);
    console.log(`${mode}: pg ${(pgMs * 1000).toFixed(0)} µs/run, node ${((cpu.user + cpu.system) / n).toFixed(0)} µs/run, wall ${((Date.now() - w0) / n).toFixed(2)} ms/run`);
  }
}
await c.end(); await db.drop();
