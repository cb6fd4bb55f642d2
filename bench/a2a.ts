/**
 * A2A benchmark: what the A2A layer adds on top of the runs API. `message/send` (a new context
 * each time, so a new thread) against `POST /threads/{new id}/runs/wait` with
 * `if_not_exists: create` — the same graph and the same thread pattern — at concurrency 1.
 * Target: ≤ 2 ms p50 added by the A2A layer.
 *
 * Usage: node --import tsx bench/a2a.ts   (BENCH_BACKENDS=pglite,postgres  BENCH_N=200)
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { BACKENDS, N, buildDist, createDb, input, sequential, startServer, summary } from "./lib.js";

process.env.BERTH_CHAT_MODEL = "echo";

async function timed(n: number, once: (i: number) => Promise<void>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await once(i); // warm-up
  return sequential(n, once);
}

const postJson = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, any>;
};

buildDist();
console.log(`Berth A2A benchmark — N=${N} per figure, ${os.cpus().length} cores, node ${process.version}`);
console.log("(figures depend on machine load; the server is a separate process, the client uses fetch)\n");
for (const backend of BACKENDS) {
  const db = await createDb(backend);
  const server = await startServer(db);
  const url = server.url;
  // alternate the two so machine noise hits both alike
  const wait: number[] = [];
  const a2a: number[] = [];
  const waitOnce = async (i: number) => {
    await postJson(`${url}/threads/${randomUUID()}/runs/wait`, { assistant_id: "chat", input: input(i), if_not_exists: "create" });
  };
  const a2aOnce = async (i: number) => {
    const r = await postJson(`${url}/a2a/chat`, {
      jsonrpc: "2.0",
      id: i,
      method: "message/send",
      params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: `hello ${i}` }] } },
    });
    if (r.result?.status?.state !== "completed") throw new Error(`A2A task not completed: ${JSON.stringify(r).slice(0, 300)}`);
  };
  await timed(0, waitOnce);
  await timed(0, a2aOnce);
  for (let round = 0; round < 4; round++) {
    wait.push(...(await timed(N / 4, waitOnce)));
    a2a.push(...(await timed(N / 4, a2aOnce)));
  }
  await server.stop();
  await db.drop();
  const w = summary(wait);
  const a = summary(a2a);
  const added = a.p50 - w.p50;
  console.log(`## ${backend}`);
  console.log("| call | p50 (ms) | p99 (ms) |");
  console.log("|---|---|---|");
  console.log(`| runs/wait (new thread) | ${w.p50.toFixed(2)} | ${w.p99.toFixed(2)} |`);
  console.log(`| A2A message/send (new context) | ${a.p50.toFixed(2)} | ${a.p99.toFixed(2)} |`);
  console.log(`| added by A2A (p50) | ${added.toFixed(2)} | ${added <= 2 ? "✓ ≤ 2 ms" : "✗ > 2 ms"} |\n`);
}
process.exit(0);
