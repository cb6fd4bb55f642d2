/** Public links to a trace (LangSmith's run sharing): one token per run, revocable. */
import { randomUUID } from "node:crypto";
import type pg from "pg";

export class ShareStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Share a run; sharing it again keeps the first token (as LangSmith does). */
  async share(tenantId: string, runId: string, token: string): Promise<string> {
    const { rows } = await this.pool.query<{ share_token: string }>(
      `WITH ins AS (
         INSERT INTO tracing_run_shares (share_token, tenant_id, run_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING share_token
       )
       SELECT share_token FROM ins UNION ALL SELECT share_token FROM tracing_run_shares WHERE tenant_id = $2 AND run_id = $3`,
      [token, tenantId, runId],
    );
    if (rows[0]) return rows[0].share_token;
    // the token was taken by another run: keep the run's own link, or make one
    return this.share(tenantId, runId, randomUUID());
  }

  async tokenOf(tenantId: string, runId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ share_token: string }>("SELECT share_token FROM tracing_run_shares WHERE tenant_id = $1 AND run_id = $2", [tenantId, runId]);
    return rows[0]?.share_token;
  }

  async unshare(tenantId: string, runId: string): Promise<void> {
    await this.pool.query("DELETE FROM tracing_run_shares WHERE tenant_id = $1 AND run_id = $2", [tenantId, runId]);
  }

  /** The tenant and run a public token opens, if it is (still) shared. */
  async resolve(token: string): Promise<{ tenant_id: string; run_id: string } | undefined> {
    const { rows } = await this.pool.query<{ tenant_id: string; run_id: string }>("SELECT tenant_id, run_id FROM tracing_run_shares WHERE share_token = $1", [token]);
    return rows[0];
  }
}
