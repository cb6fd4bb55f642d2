/**
 * The k8s listener's access to deployments and revisions in the store: reads that treat a row gone
 * meanwhile as absent (or as `Stop`), revision logs whose write failure is only logged, and status
 * writes that go through the revision state machine — a revision a newer one skipped or interrupted
 * meanwhile is left where it is. One place, so the listener, its builds and its status observation
 * all move revisions by the same rules.
 */
import { StaleRevisionStatusError, transition, type RevisionStatus } from "../../control-plane/rules/index.js";
import type { DeploymentRow, DeploymentStore, RevisionRow } from "../../control-plane/storage/deployments.js";
import { NotFoundError } from "../../shared/errors.js";
import type { Logger } from "../../shared/logging.js";
import { Stop } from "./steps.js";

export type LogType = "build" | "deploy";

export class Revisions {
  constructor(
    private readonly store: DeploymentStore,
    private readonly logger: Logger,
  ) {}

  async deployment(tenantId: string, id: string): Promise<DeploymentRow | undefined> {
    try {
      return await this.store.get(tenantId, id);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  async revision(d: DeploymentRow, id: string): Promise<RevisionRow | undefined> {
    try {
      return await this.store.revision(d.tenant_id, d.id, id);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** The deployment, fresh; `Stop` when it is gone or being deleted. */
  async live(d: { tenant_id: string; id: string }): Promise<DeploymentRow> {
    const fresh = await this.deployment(d.tenant_id, d.id);
    if (!fresh || fresh.delete_requested_at) throw new Stop();
    return fresh;
  }

  /**
   * Move a revision if the state machine allows it from where it is now; false (and no write) when
   * it does not — a newer revision skipped or interrupted it meanwhile.
   */
  async advance(r: RevisionRow, next: RevisionStatus, detail: { reason?: string; commitSha?: string } = {}): Promise<boolean> {
    const buildless = r.snapshot.source === "external_container";
    const current = (await this.store.revision(r.tenant_id, r.deployment_id, r.id).catch(() => undefined)) ?? r;
    const t = transition(current.status, next, { buildless });
    if (!t.ok) return false;
    if (!t.changed) return true;
    try {
      // compare-and-set against the status just read: a race lost to the API is not an illegal move
      await this.store.setRevisionStatus(r.id, next, { ...detail, buildless, from: current.status });
      return true;
    } catch (err) {
      // lost a race with another writer (the API superseding it)
      if (err instanceof StaleRevisionStatusError || /illegal revision status transition/.test((err as Error).message)) return false;
      throw err;
    }
  }

  log(revisionId: string, type: LogType, lines: string[], level = "INFO"): Promise<void> {
    return this.store.appendLogs(revisionId, type, lines.map((message) => ({ level, message }))).catch((err) => {
      this.logger.warn({ err, revision: revisionId }, "could not write revision logs");
    });
  }

  /** Fail a revision from whatever in-flight status it has (BUILD_FAILED while building, else DEPLOY_FAILED). */
  async fail(r: RevisionRow, reason: string, type: LogType): Promise<void> {
    await this.log(r.id, type, [reason], "ERROR");
    const current = await this.store.revision(r.tenant_id, r.deployment_id, r.id);
    const next = ["AWAITING_BUILD", "BUILDING"].includes(current.status) ? "BUILD_FAILED" : "DEPLOY_FAILED";
    await this.advance(current, next, { reason });
    this.logger.warn({ deployment: r.deployment_id, revision: r.id, reason }, `revision ${next}`);
  }
}
