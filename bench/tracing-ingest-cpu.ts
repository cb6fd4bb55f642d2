/**
 * The tracing ingest's own JavaScript, without I/O: captured `POST /runs/multipart` bodies (a
 * bench/tracing-replay.ts --save file) split, assembled, prepared and merged into rows in this
 * process against a database stub that stores nothing (new runs written as COPY text, as on
 * Postgres), so the CPU µs per run of each phase can be
 * compared before and after a change without the machine's load in the way of wall-clock figures
 * (CPU time still grows somewhat under load: compare runs taken together).
 * Runs dist/ (build it first: npx tsc -p tsconfig.build.json), or other builds with --dist DIR, once
 * per build: several builds (A/B) run in one process, taking turns request by request (a build
 * outside the checkout needs a package.json with "type": "module" and node_modules beside it).
 * Usage: node [--cpu-prof] --import tsx bench/tracing-ingest-cpu.ts FILE.json [--repeat 10] [--dist DIR]...
 */
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Queryable } from "../src/shared/db/index.js";
import type { Logger } from "../src/shared/logging.js";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { repeat: { type: "string", default: "10" }, dist: { type: "string", multiple: true } },
});
const dists = args.dist?.length ? args.dist : [path.join(import.meta.dirname, "../dist")];
const saved = JSON.parse(readFileSync(positionals[0]!, "utf8")) as { measured: { body: string; contentType: string; contentEncoding: string | null }[] };
const requests = saved.measured.map((r) => ({ ...r, body: Buffer.from(r.body, "base64") }));
const TENANT = "00000000-0000-0000-0000-000000000001";
const PROJECT = "00000000-0000-0000-0000-000000000002";
const noop = () => undefined;
const logger = { warn: noop, info: noop, error: noop, debug: noop } as unknown as Logger;
const projects = { idForName: async () => PROJECT, exists: async () => true };
let sent = 0;
let counting = false;
const db = {
  // (text, values), a query config ({text, values}, named or not: storage's prepared()), or a
  // COPY … FROM STDIN (a submittable, answered with a stream that counts what it is sent)
  query: ((query: string | { values?: unknown[]; submit?: unknown }, params?: unknown[]) => {
    if (typeof query === "object" && typeof query.submit === "function") {
      return new Writable({
        write(chunk: Buffer, _enc, done) {
          if (counting) sent += chunk.length;
          done();
        },
      });
    }
    const values = params ?? (typeof query === "object" ? query.values : undefined);
    for (const p of values ?? []) if (counting && typeof p === "string") sent += p.length; // what would be sent
    return Promise.resolve({ rows: [], rowCount: 0 });
  }) as never,
  // a client of the pool (the merge's transaction), so new runs go by COPY as on Postgres
  release: noop,
} as unknown as Queryable;

/** One build under test: its modules and its CPU per phase. */
async function build(dir: string) {
  const load = (file: string) => import(pathToFileURL(path.resolve(dir, file)).href);
  const { assemble, partsOfBody } = (await load("tracing/ingest/multipart.js")) as typeof import("../src/tracing/ingest/multipart.js");
  const { IngestService } = (await load("tracing/ingest/service.js")) as typeof import("../src/tracing/ingest/service.js");
  const { mergeGroup } = (await load("tracing/ingest/merge-batch.js")) as typeof import("../src/tracing/ingest/merge-batch.js");
  const service = new IngestService(null as never, projects as never, null as never, { maxStringBytes: 1024 * 1024, mediaThresholdBytes: 16 * 1024 }, logger);
  return { dir, assemble, partsOfBody, service, mergeGroup, phases: { split: 0, assemble: 0, prepare: 0, merge: 0 }, runs: 0 };
}
const builds = await Promise.all(dists.map(build));
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const repeat = Number(args.repeat);
// With several builds (A/B), they take turns request by request, so the machine's load, which
// moves a lot on a shared machine, weighs on each alike.
for (let r = 0; r < repeat + 2; r++) {
  counting = r >= 2; // two warm-up passes
  for (const req of requests) {
    for (const b of r % 2 ? [...builds].reverse() : builds) {
      let t = cpu();
      const parts = b.partsOfBody(req.body, req.contentType, req.contentEncoding);
      let u = cpu();
      if (counting) b.phases.split += u - t;
      t = u;
      const parsed = b.assemble(parts);
      u = cpu();
      if (counting) b.phases.assemble += u - t;
      t = u;
      const { entry } = await b.service.prepare(TENANT, parsed.ops, parsed.attachments, undefined);
      u = cpu();
      if (counting) b.phases.prepare += u - t;
      t = u;
      await b.mergeGroup(db, [entry], { defaultProject: PROJECT, prices: [], logger, copy: true });
      u = cpu();
      if (counting) b.phases.merge += u - t;
      if (counting) b.runs += entry.byId.size;
    }
  }
}
for (const b of builds) {
  const per = (us: number) => (us / b.runs).toFixed(1);
  const total = Object.values(b.phases).reduce((x, y) => x + y, 0);
  console.log(
    `${builds.length > 1 ? `${b.dir}: ` : ""}${b.runs / repeat} runs × ${repeat}: CPU µs per run: split (gunzip + multipart) ${per(b.phases.split)}, assemble (JSON.parse) ${per(b.phases.assemble)}, prepare ${per(b.phases.prepare)}, merge into rows ${per(b.phases.merge)}; total ${per(total)}; ${(sent / builds.length / b.runs).toFixed(0)} chars sent to the database per run`,
  );
}
