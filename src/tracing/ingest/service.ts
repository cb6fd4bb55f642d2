/**
 * Ingestion, staged (issue 16): a request's posts and patches are checked and prepared here
 * (cleaned, payloads trimmed, projects resolved: everything that can refuse a run is decided
 * before the answer), the request is appended to the staging table (storage/staging.ts), and the
 * merge worker (merge-worker.ts) merges it, with whatever other requests staged meanwhile, into
 * runs, costs and rollups in one transaction. The prepared runs stay in this process's memory for
 * the merge; the staged row is for durability (a crash before the merge) and other processes.
 */
import { isUuid } from "../../shared/http.js";
import type { Logger } from "../../shared/logging.js";
import { replaceUnstorable } from "../../shared/text.js";
import type { RunRecord } from "../run.js";
import { DEFAULT_PROJECT, type ProjectStore } from "../storage/projects.js";
import { isDataError } from "../storage/savepoint.js";
import type { StagedFormat, StagedRow } from "../storage/staging.js";
import { assemble, partsOfBody } from "./multipart.js";
import { cleanRun, type OpKind } from "./merge.js";
import type { PreparedEntry } from "./merge-batch.js";
import type { MergeWorker } from "./merge-worker.js";
import { preparePayload, type ExtractedAttachment, type PayloadLimits } from "./payload.js";
import { MAX_RUN_DEPTH, storableRun } from "./storable.js";
import { fillDottedOrders } from "../otlp/tree.js";
import type pg from "pg";

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

/** The request as received, staged as is when it can be read again (multipart); otherwise its prepared runs are. */
export interface IngestSource {
  format: StagedFormat;
  contentType?: string;
  contentEncoding?: string;
  body: Buffer;
}

export interface IngestOptions {
  /** Answer after the merge, with its outcome (the JSON routes, OTLP, feedback sent with runs). */
  wait?: boolean;
  source?: IngestSource;
}

const PAYLOAD_FIELDS = ["inputs", "outputs", "extra", "serialized", "events"] as const;

export class IngestService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly projects: ProjectStore,
    readonly merger: MergeWorker,
    private readonly limits: PayloadLimits,
    private readonly logger: Logger,
  ) {}

  /**
   * Accept runs of a tenant: prepared, staged, and merged by the worker (awaited with `wait`).
   * With `scope` (a deployment's tracing key) every run goes into that one project: a run naming
   * another project, or updating a run stored in another, is refused.
   */
  async ingest(tenantId: string, ops: IngestOp[], uploaded: IngestAttachment[] = [], scope?: IngestScope, options: IngestOptions = {}): Promise<IngestResult> {
    const { entry, result, staged } = await this.prepare(tenantId, ops, uploaded, scope);
    if (entry.byId.size || entry.attachments.length) {
      const source: IngestSource = options.source ?? { format: "ops", body: Buffer.from(JSON.stringify(staged)) };
      const outcome = await this.merger.submit(entry, source, options.wait ?? false);
      if (outcome) {
        let accepted = 0;
        for (const [id, o] of outcome.runs) {
          if (o.stored) accepted++;
          else result.errors.push({ run_id: id, error: o.error ?? "the run could not be stored" });
          if (o.stored && o.warnings.length) result.warnings.push({ run_id: id, problems: o.warnings });
        }
        result.errors.push(...outcome.attachmentErrors);
        result.accepted = accepted;
      } else {
        result.accepted = entry.byId.size;
        for (const [id, p] of entry.problems) result.warnings.push({ run_id: id, problems: p });
      }
    }
    // the SDKs ignore response bodies: the server's log is where a refused run can be found
    for (const e of result.errors) this.logger.warn({ tenantId, runId: e.run_id }, `ingest: run not stored: ${e.error}`);
    return result;
  }

  /**
   * Everything that can be decided before the merge: runs cleaned and made storable, payloads
   * trimmed, projects resolved (created outside any transaction: they outlive it). Also returns
   * the storable ops, which is what is staged when the request's own bytes are not.
   */
  async prepare(tenantId: string, ops: IngestOp[], uploaded: IngestAttachment[], scope: IngestScope | undefined): Promise<{ entry: PreparedEntry; result: IngestResult; staged: { kind: OpKind; raw: unknown; idHint?: string }[] }> {
    const result: IngestResult = { accepted: 0, errors: [], warnings: [] };
    const byId = new Map<string, { kind: OpKind; run: RunRecord }[]>();
    const problems = new Map<string, string[]>();
    const attachments: IngestAttachment[] = [...uploaded];
    const staged: { kind: OpKind; raw: unknown; idHint?: string }[] = [];
    const entry: PreparedEntry = { tenantId, scope: scope?.project, byId, projectOf: new Map(), problems, attachments };
    for (const op of ops) {
      try {
        // before anything reads it: strings Postgres cannot store, nesting nothing can walk
        const storable = storableRun(op.raw);
        staged.push({ kind: op.kind, raw: storable.value, ...(op.idHint === undefined ? {} : { idHint: op.idHint }) });
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
        // payload.ts changes only strings longer than its limits (the run is storable by now)
        const payloadWork = storable.longest > Math.min(this.limits.mediaThresholdBytes, this.limits.maxStringBytes);
        for (const field of PAYLOAD_FIELDS) {
          if (!payloadWork || run[field] === undefined) continue;
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
    if (!byId.size && !attachments.length) return { entry, result, staged };

    // Projects are created outside the merge transaction (they outlive it even if it fails).
    await this.resolveProjects(entry, result);
    if (scope) {
      for (const a of attachments.splice(0)) {
        if (byId.has(a.runId)) attachments.push(a);
        else result.errors.push({ run_id: a.runId, error: `attachment "${a.name}" is for a run not sent with it: this API key may attach files only to the runs it sends` });
      }
    }
    return { entry, result, staged };
  }

  /**
   * The project of each run (`entry.projectOf`), and a scoped key's project (`entry.pinned`). Run
   * again by the merge when a project was deleted behind the cache.
   */
  async resolveProjects(entry: PreparedEntry, result?: IngestResult): Promise<void> {
    const { tenantId, byId, problems } = entry;
    const projectOf = (entry.projectOf = new Map());
    const pinned = (entry.pinned = entry.scope !== undefined ? await this.projects.idForName(tenantId, entry.scope) : undefined);
    const refuse = (id: string, error: string) => {
      byId.delete(id);
      problems.delete(id);
      result?.errors.push({ run_id: id, error });
    };
    for (const [id, list] of byId) {
      if (entry.scope !== undefined && pinned) {
        const named = [...list].reverse().find((o) => o.run.session_id || o.run.session_name)?.run;
        const elsewhere = named && (named.session_id ? named.session_id !== pinned : named.session_name !== entry.scope);
        if (elsewhere) refuse(id, `this API key may write traces only to project "${entry.scope}"`);
        else projectOf.set(id, pinned);
        continue;
      }
      try {
        const project = await this.projectFor(tenantId, list.map((o) => o.run), problems, id);
        if (project) projectOf.set(id, project);
      } catch (err) {
        if (!isDataError(err)) throw err;
        // a project name Postgres refuses costs this run only
        refuse(id, `the run's project could not be stored: ${(err as Error).message}`);
      }
    }
  }

  /**
   * A staged request read back (its process died before merging it) → its prepared runs, as the
   * request would have prepared them. Throws when the row cannot be read at all (set aside).
   */
  async recover(row: StagedRow): Promise<PreparedEntry> {
    let ops: IngestOp[];
    let uploaded: IngestAttachment[] = [];
    if (row.format === "multipart") {
      const parsed = assemble(partsOfBody(row.body, row.content_type ?? "", row.content_encoding));
      ops = parsed.ops;
      uploaded = parsed.attachments;
    } else if (row.format === "ops") {
      const value = JSON.parse(row.body.toString("utf8")) as unknown;
      if (!Array.isArray(value)) throw new Error("staged ops are not a list");
      ops = value.map((o: { kind?: unknown; raw?: unknown; idHint?: unknown }) => ({
        kind: o?.kind === "patch" ? ("patch" as const) : ("post" as const),
        raw: o?.raw,
        ...(typeof o?.idHint === "string" ? { idHint: o.idHint } : {}),
      }));
    } else throw new Error(`unknown staged format ${JSON.stringify(row.format)}`);
    const { entry, result } = await this.prepare(row.tenant_id, ops, uploaded, row.scope === null ? undefined : { project: row.scope });
    for (const e of result.errors) this.logger.warn({ tenantId: row.tenant_id, runId: e.run_id, seq: row.seq }, `ingest: staged run not stored: ${e.error}`);
    return entry;
  }

  /** The tenant's default project, for runs no op names one of (read before the merge transaction). */
  defaultProject(tenantId: string): Promise<string> {
    return this.projects.idForName(tenantId, DEFAULT_PROJECT);
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
