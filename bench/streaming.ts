/**
 * Streaming benchmark: a fake model streams 1,000 tokens (bench/stream/graph.ts) and a client
 * reads them as `messages-tuple` events over SSE (POST /threads/{t}/runs/stream).
 *
 * Per backend (PGlite, Postgres + Redis), in the same run:
 * - floor: the same graph streamed in-process (`graph.stream`, streamMode "messages") with
 *   Berth's Postgres checkpointer, no server;
 * - Berth: first token at the client (p50), tokens/s per stream, at c=1 and c=20 concurrent
 *   streams (one thread each); ratios to the floor;
 * - what the durable event log holds afterwards: rows per run and bytes stored per token
 *   (pg_column_size of the rows / tokens).
 *
 * With BENCH_PEER_URL (a LangGraph.js dev server serving the same graph as `tokens`; see
 * scripts/bench-peer.sh), the same client measures the peer once, and its figures are printed
 * next to each backend's (the peer's own storage is in memory: it has no stored-bytes figure).
 *
 * Usage: node --import tsx bench/streaming.ts   (BENCH_BACKENDS=pglite,postgres  BENCH_STREAM_N=20
 * BENCH_TOKENS=1000; BENCH_SERVER_EXEC_ARGV="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server)
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { BACKENDS, buildDist, createDb, printTable, ROOT, startServer, summary, type BenchDb } from "./lib.js";
import { BerthPostgresSaver } from "../src/agent-server/checkpointer.js";
import { openDatabase } from "../src/shared/db/index.js";

const N = Number(process.env.BENCH_STREAM_N ?? 20);
const CONFIG = path.join(ROOT, "bench/stream/langgraph.json");
const { graph, TOKENS } = await import("./stream/graph.js");
const input = (i: number) => ({ messages: [{ role: "user", content: `stream ${i}` }] });

interface StreamFigures {
  firstTokenMs: number;
  tokensPerSecond: number;
  tokens: number;
}

// ---- the floor -------------------------------------------------------------------------------
async function floorStream(i: number): Promise<StreamFigures> {
  const t0 = performance.now();
  let first = 0;
  let tokens = 0;
  const stream = await graph.stream(input(i), { configurable: { thread_id: randomUUID() }, streamMode: "messages" });
  for await (const _ of stream) {
    if (tokens++ === 0) first = performance.now();
  }
  const end = performance.now();
  return { firstTokenMs: first - t0, tokensPerSecond: tokens / ((end - first) / 1000), tokens };
}

async function floor(backend: "pglite" | "postgres") {
  const db = await createDb(backend);
  const database = await openDatabase({ uri: db.uri, dataDir: db.dataDir });
  const saver = new BerthPostgresSaver(database.pool, undefined, { namedStatements: !database.embedded });
  await saver.setup();
  (graph as unknown as { checkpointer: unknown }).checkpointer = saver;
  for (let i = 0; i < 3; i++) await floorStream(i); // warm-up
  const c1 = await many(N, 1, floorStream);
  const c20 = await many(N, 20, floorStream);
  await database.close();
  await db.drop();
  return { c1, c20 };
}

// ---- Berth -----------------------------------------------------------------------------------
async function serverStream(url: string, i: number): Promise<StreamFigures> {
  const thread = (await (await fetch(`${url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
  const t0 = performance.now();
  const res = await fetch(`${url}/threads/${thread.thread_id}/runs/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: "tokens", input: input(i), stream_mode: ["messages-tuple"] }),
  });
  if (!res.ok || !res.body) throw new Error(`stream: ${res.status}`);
  const decoder = new TextDecoder();
  let buf = "";
  let first = 0;
  let tokens = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let idx: number;
    while ((idx = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, idx);
      buf = buf.slice(idx + 2);
      if (block.startsWith("event: messages\n")) {
        if (tokens++ === 0) first = performance.now();
      }
    }
  }
  const end = performance.now();
  if (tokens < TOKENS) throw new Error(`stream ${i}: ${tokens} of ${TOKENS} token events`);
  return { firstTokenMs: first - t0, tokensPerSecond: tokens / ((end - first) / 1000), tokens };
}

async function many(n: number, concurrency: number, task: (i: number) => Promise<StreamFigures>) {
  const results: StreamFigures[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) results.push(await task(next++));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const tokens = results.reduce((s, r) => s + r.tokens, 0);
  return {
    firstToken: summary(results.map((r) => r.firstTokenMs)),
    perStream: summary(results.map((r) => r.tokensPerSecond)).p50,
    aggregate: tokens / seconds,
  };
}

async function storedFigures(db: BenchDb) {
  const database = await openDatabase({ uri: db.uri, dataDir: db.dataDir });
  try {
    // pg_column_size: the row as stored (after TOAST compression); length(data): the text itself
    const { rows } = await database.pool.query<{ runs: string; rows: string; bytes: string; text: string }>(
      `SELECT (SELECT count(*) FROM runs)::text AS runs, count(*)::text AS rows, coalesce(sum(pg_column_size(e.*)), 0)::text AS bytes,
              coalesce(sum(octet_length(e.data)), 0)::text AS text FROM run_events e`,
    );
    const r = rows[0]!;
    const tokens = Number(r.runs) * TOKENS;
    return { rowsPerRun: Number(r.rows) / Number(r.runs), bytesPerToken: Number(r.bytes) / tokens, textPerToken: Number(r.text) / tokens };
  } finally {
    await database.close();
  }
}

/** What the client sees of a server (Berth or the peer): c=1, then c=20. */
async function measure(url: string) {
  for (let i = 0; i < 3; i++) await serverStream(url, i); // warm-up
  const c1 = await many(N, 1, (i) => serverStream(url, i));
  const c20 = await many(N, 20, (i) => serverStream(url, i));
  return { c1, c20 };
}

async function server(backend: "pglite" | "postgres") {
  const db = await createDb(backend);
  const execArgv = process.env.BENCH_SERVER_EXEC_ARGV?.split(" ").filter(Boolean) ?? [];
  const { url, stop } = await startServer(db, {}, { config: CONFIG, execArgv });
  const { c1, c20 } = await measure(url);
  await stop();
  const stored = await storedFigures(db);
  await db.drop();
  return { c1, c20, stored };
}

// ---- report ----------------------------------------------------------------------------------
buildDist();
const f = (n: number, d = 1) => n.toFixed(d);
const ratio = (a: number, b: number) => `${f(a / b, 2)}×`;
console.log(`Berth streaming benchmark — ${TOKENS} tokens per run, ${N} runs per figure, ${os.cpus().length} cores, node ${process.version}`);
console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
const PEER_URL = process.env.BENCH_PEER_URL;
const peer = PEER_URL ? await measure(PEER_URL) : undefined;
if (peer) console.log(`peer measured (${PEER_URL}); load: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
/** The peer's cell and Berth's ratio to it ("×" > 1 = Berth better), empty without a peer. */
const peerCells = (mine: number, theirs: number | undefined, d: number, higherIsBetter: boolean) =>
  peer && theirs !== undefined ? [f(theirs, d), `${f(higherIsBetter ? mine / theirs : theirs / mine, 2)}×`] : [];
for (const backend of BACKENDS) {
  const fl = await floor(backend);
  const sv = await server(backend);
  console.log(`## ${backend}${backend === "postgres" ? " + Redis" : ""}`);
  const blank = peer ? ["", ""] : [];
  printTable(
    ["metric", "floor", "berth", "berth / floor", ...(peer ? ["peer", "berth vs peer"] : []), "note"],
    [
      ["first token p50, c=1 (ms)", f(fl.c1.firstToken.p50, 2), f(sv.c1.firstToken.p50, 2), ratio(sv.c1.firstToken.p50, fl.c1.firstToken.p50),
        ...peerCells(sv.c1.firstToken.p50, peer?.c1.firstToken.p50, 2, false), ""],
      ["tokens/s per stream p50, c=1", f(fl.c1.perStream, 0), f(sv.c1.perStream, 0), ratio(sv.c1.perStream, fl.c1.perStream),
        ...peerCells(sv.c1.perStream, peer?.c1.perStream, 0, true), ""],
      ["first token p50, c=20 (ms)", f(fl.c20.firstToken.p50, 1), f(sv.c20.firstToken.p50, 1), ratio(sv.c20.firstToken.p50, fl.c20.firstToken.p50),
        ...peerCells(sv.c20.firstToken.p50, peer?.c20.firstToken.p50, 1, false), ""],
      ["tokens/s all streams, c=20", f(fl.c20.aggregate, 0), f(sv.c20.aggregate, 0), ratio(sv.c20.aggregate, fl.c20.aggregate),
        ...peerCells(sv.c20.aggregate, peer?.c20.aggregate, 0, true), ""],
      ["durable event rows per run", "", f(sv.stored.rowsPerRun, 1), "", ...blank, ""],
      ["bytes stored per token", "", f(sv.stored.bytesPerToken, 1), "", ...blank, "pg_column_size of the rows (after compression)"],
      ["event text bytes per token", "", f(sv.stored.textPerToken, 1), "", ...blank, "octet_length(data), before compression"],
    ],
  );
  console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`);
}
process.exit(0);
