/** Tenants and API keys: shared by the control plane and the tracing facility. */
import type { Migration } from "../db/index.js";

export const authMigrations: Migration[] = [
  {
    name: "tenants and api keys",
    sql: `
      CREATE TABLE tenants (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- Only a hash of each key is kept; the key itself is shown once, when it is created.
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        key_hash text NOT NULL UNIQUE,
        name text NOT NULL DEFAULT '',
        -- the tenants the key may act for; the first is its default (X-Tenant-Id picks another)
        tenant_ids uuid[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
];
