/**
 * Ingestion, staged: a request's posts, patches and attachments are checked and prepared (cleaned,
 * payloads trimmed, projects resolved) and appended to the staging table in one statement; the
 * merge worker (merge-worker.ts) merges them into runs and rollups in the background, with the
 * merge semantics of merge.ts. A bad run is reported and skipped; the rest is staged.
 *
 * What the answer says: the multipart route (the SDKs' path; they ignore answers) answers once its
 * runs are staged, with the problems found so far (`accepted` counts runs staged). The JSON routes
 * and OTLP answer after their runs are merged (`wait`), so their answers also say what only the
 * merge can (a post that changes nothing, a run refused for its stored project) — unless another
 * process's merger got there first: then the run's stored problems and that process's log say it.
 */
import type pg from "pg";
import type { Logger } from "../../shared/logging.js";
import type { RunRecord } from "../run.js";
import { DEFAULT_PROJECT, type ProjectStore } from "../storage/projects.js";
import { stageRows, type NewStagedRow } from "../storage/staging.js";
import { cleanRun, type OpKind } from "./merge.js";
import type { MergeWorker } from "./merge-worker.js";
import { preparePayload, type ExtractedAttachment, type PayloadLimits } from "./payload.js";
import { MAX_RUN_DEPTH, storableRun } from "./storable.js";
import { isDataError } from "../storage/savepoint.js";
import { isUuid } from "../../shared/http.js";
import { fillDottedOrders } from "../otlp/tree.js";
import { replaceUnstorable } from "../../shared/text.js";

export interface IngestOp {
  kind: OpKind;
  /** The run as sent (JSON). */
  raw: unknown;
  /** The id from the multipart part name, when the body lacks one. */
  idHint?: string;
}

/** Where a scoped key's runs go: only this project (by name) of the tenant. */
export interface IngestScope {
  project: string;
}

export interface IngestAttachment extends ExtractedAttachment {
  runId: string;
}

export interface IngestResult {
  accepted: number;
  errors: { run_id?: string; error: string }[];
  warnings: { run_id: string; problems: string[] }[];
}

const PAYLOAD_FIELDS = ["inputs", "outputs", "extra", "serialized", "events"] as const;

export interface IngestOptions {
  /** Answer after the runs are merged (the JSON routes, OTLP), not once they are staged. */
  wait?: boolean;
}

export class IngestService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly projects: ProjectStore,
    readonly merger: MergeWorker,
    private readonly limits: PayloadLimits,
    private readonly logger: Logger,
  ) {}

  /**
   * Store runs of a tenant. With `scope` (a deployment's tracing key) every run goes into that one
   * project: a run naming another project, or updating a run stored in another, is refused.
   */
  async ingest(tenantId: string, ops: IngestOp[], uploaded: IngestAttachment[] = [], scope?: IngestScope, options: IngestOptions = {}): Promise<IngestResult> {
    const result = await this.ingestOnce(tenantId, ops, uploaded, scope, options);
    // the SDKs ignore response bodies: the server's log is where a refused run can be found
    for (const e of result.errors) this.logger.warn({ tenantId, runId: e.run_id }, `ingest: run not stored: ${e.error}`);
    return result;
  }

  private async ingestOnce(tenantId: string, ops: IngestOp[], uploaded: IngestAttachment[], scope: IngestScope | undefined, options: IngestOptions): Promise<IngestResult> {
    const result: IngestResult = { accepted: 0, errors: [], warnings: [] };
    const byId = new Map<string, { kind: OpKind; run: RunRecord }[]>();
    const problems = new Map<string, string[]>();
    const attachments: IngestAttachment[] = [...uploaded];
    for (const op of ops) {
      try {
        // before anything reads it: strings Postgres cannot store, nesting nothing can walk
        const storable = storableRun(op.raw);
        const cleaned = cleanRun(storable.value, op.idHint === undefined ? undefined : replaceUnstorable(op.idHint));
        if (!cleaned.ok) {
          result.errors.push({ ...(cleaned.id ? { run_id: cleaned.id } : {}), error: cleaned.error });
          continue;
        }
        if (storable.replaced) cleaned.problems.push(`${storable.replaced} string(s) held characters Postgres cannot store (NUL, unpaired surrogates): replaced by U+FFFD`);
        if (storable.cut) cleaned.problems.push(`${storable.cut} value(s) nested deeper than ${MAX_RUN_DEPTH} levels: cut`);
        const run = cleaned.run;
        let truncated = 0;
        const own: IngestAttachment[] = [];
        for (const field of PAYLOAD_FIELDS) {
          if (run[field] === undefined) continue;
          const prepared = preparePayload(run[field], this.limits);
          (run as unknown as Record<string, unknown>)[field] = prepared.value;
          truncated += prepared.truncated;
          for (const a of prepared.attachments) own.push({ ...a, runId: run.id });
        }
        attachments.push(...own);
        if (truncated) cleaned.problems.push(`${truncated} oversized string(s) truncated`);
        if (cleaned.problems.length) problems.set(run.id, [...(problems.get(run.id) ?? []), ...cleaned.problems]);
        const list = byId.get(run.id) ?? [];
        list.push({ kind: op.kind, run });
        byId.set(run.id, list);
      } catch (err) {
        // a bug meeting odd input costs this run, not the batch
        this.logger.warn({ err }, "a run could not be prepared for storage");
        const id = (op.raw as { id?: unknown } | null)?.id;
        result.errors.push({ ...(typeof id === "string" ? { run_id: replaceUnstorable(id) } : op.idHint ? { run_id: replaceUnstorable(op.idHint) } : {}), error: `the run could not be stored: ${(err as Error).message}` });
      }
    }
    for (const a of [...attachments]) {
      if (isUuid(a.runId)) {
        a.name = replaceUnstorable(a.name);
        a.contentType = replaceUnstorable(a.contentType);
        continue;
      }
      attachments.splice(attachments.indexOf(a), 1);
      result.errors.push({ error: `attachment ${JSON.stringify(replaceUnstorable(a.name))}: run id ${JSON.stringify(replaceUnstorable(a.runId))} is not a UUID` });
    }
    if (!byId.size && !attachments.length) return result;

    // Projects are resolved (created on first use) here; the merge only checks they still exist.
    const projectOf = new Map<string, string>();
    const pinned = scope ? await this.projects.idForName(tenantId, scope.project) : undefined;
    const refuse = (id: string, error: string) => {
      byId.delete(id);
      result.errors.push({ run_id: id, error });
    };
    for (const [id, list] of byId) {
      if (scope && pinned) {
        const named = [...list].reverse().find((o) => o.run.session_id || o.run.session_name)?.run;
        const elsewhere = named && (named.session_id ? named.session_id !== pinned : named.session_name !== scope.project);
        if (elsewhere) refuse(id, `this API key may write traces only to project "${scope.project}"`);
        else projectOf.set(id, pinned);
        continue;
      }
      try {
        const project = await this.projectFor(tenantId, list.map((o) => o.run), problems, id);
        if (project) projectOf.set(id, project);
      } catch (err) {
        if (!isDataError(err)) throw err;
        // a project name Postgres refuses costs this run only
        result.errors.push({ run_id: id, error: `the run's project could not be stored: ${(err as Error).message}` });
        byId.delete(id);
        problems.delete(id);
      }
    }
    if (scope) {
      for (const a of attachments.splice(0)) {
        if (byId.has(a.runId)) attachments.push(a);
        else result.errors.push({ run_id: a.runId, error: `attachment "${a.name}" is for a run not sent with it: this API key may attach files only to the runs it sends` });
      }
    }
    if (!byId.size && !attachments.length) return result;

    const fallback = await this.projects.idForName(tenantId, DEFAULT_PROJECT);
    const staged: NewStagedRow[] = [];
    for (const [id, list] of byId) {
      list.forEach((o, i) =>
        staged.push({
          tenant_id: tenantId,
          run_id: id,
          kind: o.kind,
          op: {
            run: o.run,
            project: projectOf.get(id),
            fallback,
            ...(pinned ? { pinned, scope: scope!.project } : {}),
            // the request's problems travel once per run, to be stored with it
            ...(i === 0 && problems.get(id)?.length ? { problems: problems.get(id) } : {}),
          },
        }),
      );
    }
    for (const a of attachments) staged.push({ tenant_id: tenantId, run_id: a.runId, kind: "attachment", op: { name: a.name, contentType: a.contentType }, data: a.data });
    const waiting = options.wait ? this.merger.collect(tenantId, [...new Set(staged.map((r) => r.run_id))]) : undefined;
    try {
      const watermark = await stageRows(this.pool, staged);
      this.merger.nudge();
      if (!waiting) {
        result.accepted = byId.size;
        for (const [id, p] of problems) if (byId.has(id)) result.warnings.push({ run_id: id, problems: p });
        return result;
      }
      await this.merger.drainUpTo(watermark);
      for (const id of new Set(staged.map((r) => r.run_id))) {
        const outcome = waiting.outcomes.get(id);
        // merged by another process: what the request knew
        if (!outcome) {
          if (byId.has(id)) result.accepted++;
          if (problems.get(id)?.length) result.warnings.push({ run_id: id, problems: problems.get(id)! });
          continue;
        }
        if (outcome.stored) result.accepted++;
        for (const error of outcome.errors) result.errors.push({ run_id: id, error });
        if (outcome.stored && outcome.warnings.length) result.warnings.push({ run_id: id, problems: [...new Set(outcome.warnings)] });
      }
      return result;
    } finally {
      waiting?.release();
    }
  }

  /** Fill in the dotted orders of runs sent without one (OTLP spans) once their trace's root is stored. */
  async fillDottedOrders(tenantId: string, traceIds: string[]): Promise<number> {
    return fillDottedOrders(this.pool, tenantId, traceIds);
  }

  /** The project a run's session names; none named → undefined (keep the stored one, or default). */
  private async projectFor(tenantId: string, runs: RunRecord[], problems: Map<string, string[]>, id: string): Promise<string | undefined> {
    // A post names the project authoritatively; take the last op that names one.
    for (const run of [...runs].reverse()) {
      if (run.session_id) {
        if (await this.projects.exists(tenantId, run.session_id)) return run.session_id;
        if (!run.session_name) {
          problems.set(id, [...(problems.get(id) ?? []), `unknown project id ${run.session_id}: stored in "${DEFAULT_PROJECT}"`]);
          return this.projects.idForName(tenantId, DEFAULT_PROJECT);
        }
      }
      if (run.session_name) return this.projects.idForName(tenantId, run.session_name);
    }
    return undefined;
  }
}
