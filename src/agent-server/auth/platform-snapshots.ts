/**
 * The agent server's copy of its tenant's key snapshot, in its own database: a restart while the
 * control plane is down still knows the keys, and a stale snapshot from the environment (the one
 * the deployment was started with) never brings back a key revoked since: the newest version wins.
 */
import type pg from "pg";
import { migrateComponents, type Migration } from "../../shared/db/index.js";
import { keySnapshotSchema, type KeySnapshot } from "../../shared/auth/index.js";

const migrations: Migration[] = [
  {
    name: "platform auth key snapshots",
    sql: `
      CREATE TABLE platform_auth_snapshots (
        tenant_id text PRIMARY KEY,
        version bigint NOT NULL,
        -- [{id, sha256}]: hashes only, as the control plane keeps them
        keys jsonb NOT NULL,
        saved_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
];

export class KeySnapshotStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly embedded: boolean,
  ) {}

  async setup(): Promise<void> {
    await migrateComponents(this.pool, this.embedded, [["agent-server-platform-auth", migrations]]);
  }

  async load(tenantId: string): Promise<KeySnapshot | undefined> {
    const { rows } = await this.pool.query<{ version: string; keys: unknown }>("SELECT version, keys FROM platform_auth_snapshots WHERE tenant_id = $1", [tenantId]);
    if (!rows[0]) return undefined;
    const parsed = keySnapshotSchema.safeParse({ tenant_id: tenantId, version: Number(rows[0].version), keys: rows[0].keys });
    return parsed.success ? parsed.data : undefined;
  }

  /** Keep `s` unless a newer (or the same) version is kept already; whether it was written. */
  async save(s: KeySnapshot): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO platform_auth_snapshots (tenant_id, version, keys) VALUES ($1, $2, $3::jsonb)
       ON CONFLICT (tenant_id) DO UPDATE SET version = EXCLUDED.version, keys = EXCLUDED.keys, saved_at = now()
       WHERE platform_auth_snapshots.version < EXCLUDED.version`,
      [s.tenant_id, s.version, JSON.stringify(s.keys)],
    );
    return Boolean(rowCount);
  }
}
