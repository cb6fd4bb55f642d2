/**
 * Runs that never receive their end (the traced process died, the SDK's last upload was lost)
 * would stay `pending` forever. A background sweep marks those whose start is older than a
 * configurable time as errors, saying why; rollups move with them (pending → error). A late end
 * still completes such a run: the ingest clears the abandonment when an end or an error arrives.
 */
import type pg from "pg";
import { withTransaction } from "../../shared/db/index.js";
import type { Logger } from "../../shared/logging.js";
import { combineDeltas, contribution } from "../rollups/contribution.js";
import { applyRollupDeltas } from "../storage/rollups.js";
import { selectRuns, writeRuns } from "../storage/runs.js";
import { lockRuns } from "./locks.js";

export const ABANDONED_PREFIX = "abandoned:";

export function abandonedError(afterSeconds: number): string {
  return `${ABANDONED_PREFIX} no end was received within ${afterSeconds} s of the run's start (its process probably stopped); an end sent later still completes the run`;
}

export function isAbandoned(error: string | null | undefined): boolean {
  return typeof error === "string" && error.startsWith(ABANDONED_PREFIX);
}

/** One pass: mark up to `limit` stale pending runs (all tenants). Returns how many were marked. */
export async function sweepAbandoned(pool: pg.Pool, afterSeconds: number, limit = 500): Promise<number> {
  const { rows } = await pool.query<{ tenant_id: string; id: string }>(
    `SELECT tenant_id, id FROM tracing_runs WHERE status = 'pending' AND coalesce(start_time, created_at) < now() - make_interval(secs => $1)
     ORDER BY coalesce(start_time, created_at) LIMIT $2`,
    [afterSeconds, limit],
  );
  const byTenant = new Map<string, string[]>();
  for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), r.id]);
  let marked = 0;
  for (const [tenantId, ids] of byTenant) {
    marked += await withTransaction(pool, async (client) => {
      await lockRuns(client, tenantId, ids);
      // re-read under the lock: an end may have arrived since the scan
      const before = (await selectRuns(client, tenantId, ids)).filter((r) => r.status === "pending");
      if (!before.length) return 0;
      const after = before.map((r) => ({ ...r, status: "error", error: abandonedError(afterSeconds) }));
      await writeRuns(client, after, new Set(after.map((r) => r.id)));
      await applyRollupDeltas(client, combineDeltas(before.flatMap((r, i) => [...contribution(r, -1), ...contribution(after[i]!, 1)])));
      return after.length;
    });
  }
  return marked;
}

/** The background sweep: every `everySeconds`, until stopped. */
export function startAbandonSweep(pool: pg.Pool, options: { afterSeconds: number; everySeconds: number }, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      try {
        // several passes when there is a backlog, so one tick does not leave most of it
        for (let pass = 0; pass < 20 && !stopped; pass++) {
          const n = await sweepAbandoned(pool, options.afterSeconds);
          if (n) logger.info({ runs: n, afterSeconds: options.afterSeconds }, "runs that never received their end marked abandoned");
          if (n < 500) break;
        }
      } catch (err) {
        if (!stopped) logger.warn({ err }, "abandoned-run sweep failed (retried at the next interval)");
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(tick, options.everySeconds * 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
