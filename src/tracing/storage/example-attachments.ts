/**
 * Files of examples: blobs stored once per tenant by their sha256, and the references each version
 * of an example holds (see the tables' comments in migrations.ts). The writes run inside the
 * example store's transactions; reads and the signing key go through the pool.
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { withTransaction, type Queryable } from "../../shared/db/index.js";
import { NotFoundError } from "../../shared/errors.js";
import type { AttachmentRef, AttachmentUpload } from "../datasets/attachments.js";

/** One version of an example, as its row names it. */
export interface VersionKey {
  id: string;
  valid_from: Date;
}

const keyOf = (id: string, validFrom: Date) => `${id}|${new Date(validFrom).getTime()}`;

/**
 * Writers of references hold the tenant's blob lock shared, and garbage collection holds it
 * exclusively: so collection never deletes a blob a write in flight is about to reference.
 */
const lockBlobs = (client: Queryable, tenantId: string, mode: "shared" | "exclusive") =>
  client.query(`SELECT ${mode === "shared" ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock"}(hashtext($1))`, [`tracing-example-blobs:${tenantId}`]);

/** Store uploaded bytes, once per content (inside the writing transaction). */
export async function writeBlobs(client: Queryable, tenantId: string, uploads: AttachmentUpload[]): Promise<void> {
  if (!uploads.length) return;
  await lockBlobs(client, tenantId, "shared");
  const seen = new Set<string>();
  for (const u of uploads) {
    if (seen.has(u.sha256)) continue;
    seen.add(u.sha256);
    await client.query(
      `INSERT INTO tracing_example_blobs (tenant_id, sha256, size, data) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, sha256) DO NOTHING`,
      [tenantId, u.sha256, u.size, u.data],
    );
  }
}

/** The files of one version of an example. */
export async function writeRefs(client: Queryable, tenantId: string, version: VersionKey, refs: AttachmentRef[]): Promise<void> {
  if (!refs.length) return;
  await lockBlobs(client, tenantId, "shared");
  for (const r of refs) {
    await client.query(
      "INSERT INTO tracing_example_attachments (tenant_id, example_id, valid_from, name, sha256, mime_type, size) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      [tenantId, version.id, version.valid_from, r.name, r.sha256, r.mime_type, r.size],
    );
  }
}

/** The files of versions of examples, by `refKey(id, valid_from)`. */
export async function refsOf(client: Queryable, tenantId: string, versions: VersionKey[]): Promise<Map<string, AttachmentRef[]>> {
  const out = new Map<string, AttachmentRef[]>();
  if (!versions.length) return out;
  const { rows } = await client.query<{ example_id: string; valid_from: Date; name: string; sha256: string; mime_type: string; size: string }>(
    `SELECT a.example_id, a.valid_from, a.name, a.sha256, a.mime_type, a.size FROM tracing_example_attachments a
     JOIN unnest($2::uuid[], $3::timestamptz[]) AS v(id, valid_from) ON a.example_id = v.id AND a.valid_from = v.valid_from
     WHERE a.tenant_id = $1 ORDER BY a.name`,
    [tenantId, versions.map((v) => v.id), versions.map((v) => v.valid_from)],
  );
  for (const r of rows) {
    const k = keyOf(r.example_id, r.valid_from);
    out.set(k, [...(out.get(k) ?? []), { name: r.name, sha256: r.sha256, mime_type: r.mime_type, size: Number(r.size) }]);
  }
  return out;
}

export const refKey = keyOf;

/** Drop the tenant's blobs no example version references any more (after hard deletes). */
export async function collectBlobs(pool: pg.Pool, tenantId: string): Promise<number> {
  return withTransaction(pool, async (client) => {
    await lockBlobs(client, tenantId, "exclusive");
    const { rowCount } = await client.query(
      `DELETE FROM tracing_example_blobs b WHERE b.tenant_id = $1
         AND NOT EXISTS (SELECT 1 FROM tracing_example_attachments a WHERE a.tenant_id = b.tenant_id AND a.sha256 = b.sha256)`,
      [tenantId],
    );
    return rowCount ?? 0;
  });
}

export class ExampleBlobStore {
  private key?: Promise<Buffer>;
  constructor(private readonly pool: pg.Pool) {}

  /** A tenant's blob. */
  async blob(tenantId: string, sha256: string): Promise<Buffer> {
    const { rows } = await this.pool.query<{ data: Buffer }>("SELECT data FROM tracing_example_blobs WHERE tenant_id = $1 AND sha256 = $2", [tenantId, sha256]);
    if (!rows[0]) throw new NotFoundError("This attachment no longer exists.");
    return rows[0].data;
  }

  /** The key that signs attachment links: made once, shared by every replica through the database. */
  signingKey(): Promise<Buffer> {
    this.key ??= (async () => {
      await this.pool.query("INSERT INTO tracing_signing_keys (purpose, secret) VALUES ('example-attachments', $1) ON CONFLICT (purpose) DO NOTHING", [randomBytes(32)]);
      const { rows } = await this.pool.query<{ secret: Buffer }>("SELECT secret FROM tracing_signing_keys WHERE purpose = 'example-attachments'");
      return rows[0]!.secret;
    })().catch((err) => {
      this.key = undefined;
      throw err;
    });
    return this.key;
  }
}
