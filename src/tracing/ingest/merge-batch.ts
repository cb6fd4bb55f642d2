/**
 * The merge of prepared posts and patches into stored runs, inside the merge worker's transaction
 * (merge-worker.ts): runs of one id are serialised with transaction-scoped advisory locks, what is
 * stored is read once, every op of the batch is merged in memory in the order it was staged (so a
 * post and its patch staged by different requests become one insert), then the rows, the rollup
 * deltas and the attachments are written in one statement each. A run Postgres refuses costs only
 * itself (the batch again, run by run, each in a savepoint).
 */
import type { Queryable } from "../../shared/db/index.js";
import type { Logger } from "../../shared/logging.js";
import type { ModelPrice } from "../accounting/cost.js";
import type { RunRecord } from "../run.js";
import { combineDeltas, contribution } from "../rollups/contribution.js";
import { applyRollupDeltas } from "../storage/rollups.js";
import { rowToRecord, selectRuns, writeRuns, type RunRow } from "../storage/runs.js";
import { isDataError, savepoint } from "../storage/savepoint.js";
import { isAbandoned } from "./abandon.js";
import { lockRuns } from "./locks.js";
import { deriveTree, ignoredByPost, mergeRun, type OpKind } from "./merge.js";
import { fillTraceIds, insertAttachments, toRow } from "./run-row.js";
import type { IngestAttachment } from "./service.js";

/** One request's runs, prepared (cleaned, payloads trimmed, projects resolved) and staged. */
export interface PreparedEntry {
  tenantId: string;
  /** A scoped key's project name, and its id: runs may not live in another project. */
  scope?: string;
  pinned?: string;
  /** run id → its posts and patches, in the order sent. */
  byId: Map<string, { kind: OpKind; run: RunRecord }[]>;
  /** run id → the project its ops name (absent: keep the stored one, or the default). */
  projectOf: Map<string, string>;
  /** run id → problems found while preparing it (stored with the run). */
  problems: Map<string, string[]>;
  attachments: IngestAttachment[];
}

/** What became of one run of the merge. */
export interface RunOutcome {
  stored: boolean;
  error?: string;
  warnings: string[];
}

export interface GroupContext {
  defaultProject: string;
  prices: ModelPrice[];
  logger: Logger;
  /** Named (server-side prepared) statements: not on the embedded database (db/index.ts prepared). */
  usePrepared?: boolean;
  /** New runs written with COPY (storage/copy-rows.ts): a real Postgres, not the embedded database. */
  copy?: boolean;
}

/**
 * Merge entries of one tenant and scope (in staging order) on `client`, inside its transaction.
 * Returns each run's outcome (by run id) and the attachments refused.
 */
export async function mergeGroup(client: Queryable, entries: PreparedEntry[], ctx: GroupContext): Promise<{ runs: Map<string, RunOutcome>; attachmentErrors: { run_id: string; error: string }[] }> {
  const tenantId = entries[0]!.tenantId;
  const pinned = entries[0]!.pinned;
  const scope = entries[0]!.scope;
  const byId = new Map<string, { kind: OpKind; run: RunRecord }[]>();
  const projectOf = new Map<string, string>();
  const problems = new Map<string, string[]>();
  let attachments: IngestAttachment[] = [];
  for (const e of entries) {
    for (const [id, list] of e.byId) byId.set(id, [...(byId.get(id) ?? []), ...list]);
    for (const [id, p] of e.projectOf) projectOf.set(id, p); // the later request names the project
    for (const [id, p] of e.problems) problems.set(id, [...(problems.get(id) ?? []), ...p]);
    attachments.push(...e.attachments);
  }
  const runs = new Map<string, RunOutcome>();
  const notices = new Map<string, string[]>();
  const attachmentErrors: { run_id: string; error: string }[] = [];
  const failed = (id: string, err: unknown) => {
    ctx.logger.warn({ err, runId: id }, "a run of the batch could not be stored");
    runs.set(id, { stored: false, error: `the run could not be stored: ${(err as Error).message}`, warnings: [] });
    problems.delete(id);
    byId.delete(id);
  };

  const ids = [...byId.keys()];
  const usePrepared = ctx.usePrepared ?? false;
  await lockRuns(client, tenantId, ids, usePrepared);
  const stored = new Map((await selectRuns(client, tenantId, ids)).map((r) => [r.id, r]));
  if (pinned) {
    for (const [id, row] of stored) {
      if (row.project_id === pinned) continue;
      runs.set(id, { stored: false, error: `run ${id} belongs to another project: this API key may write traces only to project "${scope}"`, warnings: [] });
      byId.delete(id);
      stored.delete(id);
    }
    attachments = attachments.filter((a) => byId.has(a.runId));
  }
  const merged = new Map<string, RunRecord>();
  const derivedOf = new Map<string, string[]>();
  for (const [id, list] of byId) {
    try {
      const before = stored.get(id);
      let run = before ? rowToRecord(before) : undefined;
      // a run the sweep gave up on completes after all when its end (or its error) arrives
      if (run && isAbandoned(run.error) && list.some((op) => op.run.end_time || op.run.error)) delete run.error;
      for (const op of list) {
        if (op.kind === "post" && run) {
          const ignored = ignoredByPost(run, op.run);
          if (ignored.length) notices.set(id, [...(notices.get(id) ?? []), `run ${id} already exists: this post's ${ignored.join(", ")} ${ignored.length > 1 ? "were" : "was"} ignored (a post never changes a stored run: send a patch to update it)`]);
        }
        run = mergeRun(run, op.run, op.kind);
      }
      const tree = deriveTree(run!);
      merged.set(id, tree.run);
      derivedOf.set(id, tree.derived);
    } catch (err) {
      failed(id, err);
    }
  }
  await fillTraceIds(client, tenantId, merged, derivedOf);

  const rows: RunRow[] = [];
  for (const [id, run] of merged) {
    try {
      const before = stored.get(id);
      const list = problems.get(id) ?? [];
      rows.push(toRow(ctx.logger, tenantId, run, projectOf.get(id) ?? before?.project_id ?? ctx.defaultProject, list, before, ctx.prices, derivedOf.get(id) ?? []));
      if (list.length) problems.set(id, list);
    } catch (err) {
      failed(id, err);
    }
  }
  const write = async (batch: RunRow[], files: IngestAttachment[]) => {
    await writeRuns(client, batch, new Set(stored.keys()), usePrepared, ctx.copy ?? false);
    await applyRollupDeltas(client, combineDeltas(batch.flatMap((row) => [...contribution(stored.get(row.id), -1), ...contribution(row, 1)])), usePrepared);
    await insertAttachments(client, tenantId, files);
  };
  const ok = (id: string) => runs.set(id, { stored: true, warnings: [...(problems.get(id) ?? []), ...(notices.get(id) ?? [])] });
  // The whole batch in one go (the usual case); if a run's data is refused, run by run, so one
  // bad run costs only itself (each in its own savepoint).
  try {
    await savepoint(client, () => write(rows, attachments));
    for (const row of rows) ok(row.id);
  } catch (err) {
    if (!isDataError(err)) throw err;
    const rowIds = new Set(rows.map((r) => r.id));
    for (const row of rows) {
      try {
        await savepoint(client, () => write([row], attachments.filter((a) => a.runId === row.id)));
        ok(row.id);
      } catch (err) {
        if (!isDataError(err)) throw err;
        failed(row.id, err);
      }
    }
    for (const a of attachments.filter((a) => !rowIds.has(a.runId))) {
      try {
        await savepoint(client, () => insertAttachments(client, tenantId, [a]));
      } catch (err) {
        if (!isDataError(err)) throw err;
        attachmentErrors.push({ run_id: a.runId, error: `attachment ${JSON.stringify(a.name)} could not be stored: ${(err as Error).message}` });
      }
    }
  }
  for (const [id, p] of notices) if (runs.get(id)?.stored) ctx.logger.warn({ tenantId, runId: id }, `ingest: ${p.join("; ")}`);
  return { runs, attachmentErrors };
}
