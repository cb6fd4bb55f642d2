/**
 * The merge: claimed staged rows of one tenant → merged, accounted run rows, their attachments
 * and the rollup deltas, inside the caller's transaction (the one that claimed and deletes them).
 * The merge semantics are the request-time ones of before (merge.ts): a run's posts and patches
 * apply in the order they were staged, onto what is stored, under the runs' ingest locks. A run
 * that cannot be stored costs only itself; its staged rows come back as failures (kept and
 * reported by the worker), never to be retried.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Logger } from "../../shared/logging.js";
import type { Json, RunRecord } from "../run.js";
import { combineDeltas, contribution } from "../rollups/contribution.js";
import { applyRollupDeltas } from "../storage/rollups.js";
import type { PriceStore } from "../storage/prices.js";
import { DEFAULT_PROJECT } from "../storage/projects.js";
import { rowToRecord, selectRuns, writeRuns, type RunRow } from "../storage/runs.js";
import type { StagedAttachmentOp, StagedRow, StagedRunOp } from "../storage/staging.js";
import { isDataError, savepoint } from "../storage/savepoint.js";
import { deriveTree, ignoredByPost, mergeRun } from "./merge.js";
import { isAbandoned } from "./abandon.js";
import { lockRuns } from "./locks.js";
import { toRow } from "./run-row.js";

/** What became of one run in a merge: its warnings (stored problems and notices) or why it was not stored. */
export interface RunOutcome {
  stored: boolean;
  errors: string[];
  warnings: string[];
}

export interface TenantMerge {
  /** By run id. */
  outcomes: Map<string, RunOutcome>;
  /** Staged rows not used, with the reason. */
  failures: { row: StagedRow; error: string }[];
  /** A project was deleted behind a request's cache and created again: caches must forget. */
  recreated?: boolean;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why a staged row cannot be merged at all (written by another version, or by hand), or undefined. */
export function malformed(row: StagedRow): string | undefined {
  if (row.kind === "attachment") {
    const op = row.op as StagedAttachmentOp;
    return isObject(op) && typeof op.name === "string" && typeof op.contentType === "string" && row.data ? undefined : "malformed staged attachment";
  }
  if (row.kind !== "post" && row.kind !== "patch") return `unknown staged kind ${JSON.stringify(row.kind)}`;
  const op = row.op as StagedRunOp;
  if (!isObject(op) || !isObject(op.run)) return "malformed staged run: no run object";
  if (op.run.id !== row.run_id) return "malformed staged run: its id does not match the row's";
  return undefined;
}

export async function mergeTenant(client: pg.PoolClient, tenantId: string, staged: StagedRow[], prices: PriceStore, logger: Logger): Promise<TenantMerge> {
  const outcomes = new Map<string, RunOutcome>();
  const failures: TenantMerge["failures"] = [];
  const outcome = (id: string) => {
    let o = outcomes.get(id);
    if (!o) outcomes.set(id, (o = { stored: false, errors: [], warnings: [] }));
    return o;
  };
  /** Staged rows by run id, in seq order (the caller claimed them sorted). */
  const byId = new Map<string, StagedRow[]>();
  const attachments: StagedRow[] = [];
  for (const row of staged) {
    const bad = malformed(row);
    if (bad) {
      failures.push({ row, error: bad });
      outcome(row.run_id).errors.push(bad);
      continue;
    }
    if (row.kind === "attachment") attachments.push(row);
    else byId.set(row.run_id, [...(byId.get(row.run_id) ?? []), row]);
  }
  /** A run (and its attachments in this merge) not stored: every staged row of it is a failure. */
  const fail = (id: string, error: string, rows = byId.get(id) ?? []) => {
    for (const row of rows) failures.push({ row, error });
    for (let i = attachments.length - 1; i >= 0; i--) {
      if (attachments[i]!.run_id !== id) continue;
      failures.push({ row: attachments[i]!, error });
      attachments.splice(i, 1);
    }
    const o = outcome(id);
    o.errors.push(error);
    o.stored = false;
  };

  const ids = [...byId.keys()];
  await lockRuns(client, tenantId, ids);
  const stored = new Map((await selectRuns(client, tenantId, ids)).map((r) => [r.id, r]));
  const ownPrices = await prices.tenantPrices(tenantId, client);
  const projectIds = new Set<string>();
  for (const rows of byId.values()) for (const r of rows) for (const p of [(r.op as StagedRunOp).project, (r.op as StagedRunOp).pinned, (r.op as StagedRunOp).fallback]) if (p) projectIds.add(p);
  const { rows: live } = projectIds.size ? await client.query<{ id: string }>("SELECT id FROM tracing_projects WHERE tenant_id = $1 AND id = ANY($2::uuid[])", [tenantId, [...projectIds]]) : { rows: [] };
  const existing = new Set(live.map((p) => p.id));

  let recreated = false;
  const merged = new Map<string, RunRecord>();
  const derivedOf = new Map<string, string[]>();
  const projectOf = new Map<string, string>();
  const problems = new Map<string, string[]>();
  const notices = new Map<string, string[]>();
  for (const [id, rows] of byId) {
    try {
      const before = stored.get(id);
      let run = before ? rowToRecord(before) : undefined;
      // a run the sweep gave up on completes after all when its end (or its error) arrives
      if (run && isAbandoned(run.error) && rows.some((r) => (r.op as StagedRunOp).run.end_time || (r.op as StagedRunOp).run.error)) delete run.error;
      let named: string | undefined;
      let fallback: string | undefined;
      const applied: StagedRow[] = [];
      for (const row of rows) {
        const op = row.op as StagedRunOp;
        const home = named ?? before?.project_id;
        if (op.pinned && home && home !== op.pinned) {
          const error = `run ${id} belongs to another project: this API key may write traces only to project "${op.scope ?? op.pinned}"`;
          failures.push({ row, error });
          outcome(id).errors.push(error);
          continue;
        }
        if (row.kind === "post" && run) {
          const ignored = ignoredByPost(run, op.run);
          if (ignored.length) notices.set(id, [...(notices.get(id) ?? []), `run ${id} already exists: this post's ${ignored.join(", ")} ${ignored.length > 1 ? "were" : "was"} ignored (a post never changes a stored run: send a patch to update it)`]);
        }
        run = mergeRun(run, op.run, row.kind as "post" | "patch");
        // the last op naming a project wins (as a request's did); a scoped key's op names its own
        named = op.pinned ?? op.project ?? named;
        fallback ??= op.fallback;
        if (op.problems?.length) problems.set(id, [...(problems.get(id) ?? []), ...op.problems]);
        applied.push(row);
      }
      if (!applied.length) {
        byId.delete(id);
        for (let i = attachments.length - 1; i >= 0; i--) if (attachments[i]!.run_id === id) attachments.splice(i, 1);
        continue;
      }
      byId.set(id, applied);
      let project = named ?? before?.project_id ?? fallback;
      if (project && !existing.has(project) && project !== before?.project_id) {
        // deleted after the request resolved it (another process's cache, or a delete meanwhile):
        // recreated under its name, as a request naming it would
        const name = [...applied].reverse().map((r) => (r.op as StagedRunOp).run.session_name).find(Boolean) ?? (project === fallback ? DEFAULT_PROJECT : undefined);
        project = name ? await projectNamed(client, tenantId, name) : undefined;
        if (project) (existing.add(project), (recreated = true));
      }
      if (!project) {
        fail(id, "the run's project was deleted before the run was merged: not stored");
        byId.delete(id);
        continue;
      }
      projectOf.set(id, project);
      const tree = deriveTree(run!);
      merged.set(id, tree.run);
      derivedOf.set(id, tree.derived);
    } catch (err) {
      logger.warn({ err, runId: id }, "a staged run could not be merged");
      fail(id, `the run could not be stored: ${(err as Error).message}`);
      byId.delete(id);
    }
  }
  await fillTraceIds(client, tenantId, merged, derivedOf);

  const rows: RunRow[] = [];
  for (const [id, run] of merged) {
    try {
      const list = problems.get(id) ?? [];
      rows.push(toRow(tenantId, run, projectOf.get(id)!, list, stored.get(id), ownPrices, derivedOf.get(id) ?? [], logger));
      if (list.length) problems.set(id, list);
    } catch (err) {
      logger.warn({ err, runId: id }, "a staged run could not be merged");
      fail(id, `the run could not be stored: ${(err as Error).message}`);
    }
  }
  const write = async (batch: RunRow[], files: StagedRow[]) => {
    await writeRuns(client, batch, new Set(stored.keys()));
    await applyRollupDeltas(client, combineDeltas(batch.flatMap((row) => [...contribution(stored.get(row.id), -1), ...contribution(row, 1)])));
    await insertAttachments(client, tenantId, files);
  };
  const done = (id: string) => {
    const o = outcome(id);
    o.stored = true;
    o.warnings.push(...(problems.get(id) ?? []), ...(notices.get(id) ?? []));
    const said = notices.get(id);
    if (said) logger.warn({ tenantId, runId: id }, `ingest: ${said.join("; ")}`);
  };
  // The whole merge in one go (the usual case); if a run's data is refused, run by run, so one
  // bad run costs only itself (each in its own savepoint).
  try {
    await savepoint(client, () => write(rows, attachments));
    for (const r of rows) done(r.id);
    return { outcomes, failures, recreated };
  } catch (err) {
    if (!isDataError(err)) throw err;
  }
  const rowIds = new Set(rows.map((r) => r.id));
  for (const row of rows) {
    try {
      await savepoint(client, () => write([row], attachments.filter((a) => a.run_id === row.id)));
      done(row.id);
    } catch (err) {
      if (!isDataError(err)) throw err;
      logger.warn({ err, runId: row.id }, "a staged run could not be stored");
      fail(row.id, `the run could not be stored: ${(err as Error).message}`);
    }
  }
  for (const a of attachments.filter((a) => !rowIds.has(a.run_id))) {
    try {
      await savepoint(client, () => insertAttachments(client, tenantId, [a]));
    } catch (err) {
      if (!isDataError(err)) throw err;
      const error = `attachment ${JSON.stringify((a.op as StagedAttachmentOp).name)} could not be stored: ${(err as Error).message}`;
      failures.push({ row: a, error });
      outcome(a.run_id).errors.push(error);
    }
  }
  return { outcomes, failures, recreated };
}

/** A project's id by name, created if missing (inside the merge's transaction). */
async function projectNamed(client: pg.PoolClient, tenantId: string, name: string): Promise<string> {
  await client.query("INSERT INTO tracing_projects (id, tenant_id, name) VALUES ($1, $2, $3) ON CONFLICT (tenant_id, name) DO NOTHING", [randomUUID(), tenantId, name]);
  const { rows } = await client.query<{ id: string }>("SELECT id FROM tracing_projects WHERE tenant_id = $1 AND name = $2", [tenantId, name]);
  return rows[0]!.id;
}

/** Children sent without trace_id or dotted_order (plain POST /runs) join their parent's trace. */
async function fillTraceIds(db: pg.PoolClient, tenantId: string, runs: Map<string, RunRecord>, derivedOf: Map<string, string[]>): Promise<void> {
  const missing = [...runs.values()].filter((r) => !r.trace_id && r.parent_run_id);
  if (!missing.length) return;
  const parents = missing.map((r) => r.parent_run_id!).filter((p) => !runs.get(p)?.trace_id);
  const { rows } = parents.length
    ? await db.query<{ id: string; trace_id: string }>("SELECT id, trace_id FROM tracing_runs WHERE tenant_id = $1 AND id = ANY($2::uuid[])", [tenantId, parents])
    : { rows: [] };
  const traceOf = new Map(rows.map((r) => [r.id, r.trace_id]));
  // resolve in rounds: a chain of new runs in one batch takes its root's trace
  for (let round = 0; round < 32; round++) {
    let changed = false;
    for (const r of runs.values()) {
      if (r.trace_id || !r.parent_run_id) continue;
      const t = runs.get(r.parent_run_id)?.trace_id ?? traceOf.get(r.parent_run_id);
      if (t) {
        r.trace_id = t;
        derivedOf.get(r.id)?.push("trace_id");
        changed = true;
      }
    }
    if (!changed) break;
  }
  // a parent we have never seen: the parent's id names the trace until it arrives
  for (const r of runs.values()) {
    if (r.trace_id) continue;
    r.trace_id = r.parent_run_id ?? r.id;
    derivedOf.get(r.id)?.push("trace_id");
  }
}

async function insertAttachments(db: pg.PoolClient, tenantId: string, attachments: StagedRow[]): Promise<void> {
  // one statement per attachment: bytea travels as a binary parameter, not inside JSON
  for (const a of attachments) {
    const op = a.op as StagedAttachmentOp;
    await db.query(
      `INSERT INTO tracing_attachments (tenant_id, run_id, name, content_type, data) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, run_id, name) DO UPDATE SET content_type = EXCLUDED.content_type, data = EXCLUDED.data`,
      [tenantId, a.run_id, op.name, op.contentType, a.data],
    );
  }
}
