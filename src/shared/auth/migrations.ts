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
  {
    name: "admin keys and scoped keys",
    sql: `
      -- an admin key may also manage tenants (only keys the operator configures are admin)
      ALTER TABLE api_keys ADD COLUMN admin boolean NOT NULL DEFAULT false;
      -- empty: every API of the key's tenants; else only what the scopes allow (tracing:write = trace ingestion)
      ALTER TABLE api_keys ADD COLUMN scopes text[] NOT NULL DEFAULT '{}';
      -- a scoped key may write traces only to this project (null: any project of its tenant)
      ALTER TABLE api_keys ADD COLUMN project text;
      -- the deployment a key was issued for: revoked when the deployment is deleted
      ALTER TABLE api_keys ADD COLUMN deployment_id uuid;
      CREATE INDEX api_keys_deployment ON api_keys (deployment_id) WHERE deployment_id IS NOT NULL;
    `,
  },
];
