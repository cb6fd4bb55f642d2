/** Tables of the control plane. Append new migrations; never edit applied ones. */
import type { Migration } from "../../shared/db/index.js";

export const controlPlaneMigrations: Migration[] = [
  {
    name: "listeners, deployments, revisions, revision logs",
    sql: `
      CREATE TABLE cp_listeners (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        compute_type text NOT NULL,
        compute_id text NOT NULL,
        compute_config jsonb NOT NULL DEFAULT '{}',
        version text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, compute_id)
      );

      -- config: the DeploymentConfig without secrets (rules/config.ts); secrets are encrypted
      -- one by one ([{name, value: "v1:…"}], rules/secrets.ts).
      CREATE TABLE cp_deployments (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        name text NOT NULL,
        source text NOT NULL,
        config jsonb NOT NULL,
        secrets jsonb NOT NULL DEFAULT '[]',
        status text NOT NULL,
        latest_revision_id uuid,
        active_revision_id uuid,
        database_ready boolean NOT NULL DEFAULT false,
        delete_requested_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, name)
      );

      -- A revision is immutable but for its status: snapshot = what it is built from.
      CREATE TABLE cp_revisions (
        id uuid PRIMARY KEY,
        deployment_id uuid NOT NULL REFERENCES cp_deployments (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        seq integer NOT NULL,
        status text NOT NULL,
        snapshot jsonb NOT NULL,
        secrets jsonb NOT NULL DEFAULT '[]',
        repo_commit_sha text,
        status_reason text,
        deploying_since timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (deployment_id, seq)
      );

      CREATE TABLE cp_revision_logs (
        id bigserial PRIMARY KEY,
        revision_id uuid NOT NULL REFERENCES cp_revisions (id) ON DELETE CASCADE,
        type text NOT NULL,
        ts timestamptz NOT NULL DEFAULT clock_timestamp(),
        level text NOT NULL DEFAULT 'INFO',
        message text NOT NULL
      );
      CREATE INDEX cp_revision_logs_by_revision ON cp_revision_logs (revision_id, type, id);
    `,
  },
  {
    name: "hosted-git integrations",
    sql: `
      -- A git host deployments build from: kind local (file:// URLs and paths on this machine),
      -- github (API + token, repos listed), git (any URL git can fetch). token and webhook_secret
      -- are encrypted like deployment secrets.
      CREATE TABLE cp_integrations (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        name text NOT NULL,
        kind text NOT NULL,
        base_url text,
        token text,
        webhook_secret text,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, name)
      );
    `,
  },
  {
    name: "idempotency keys",
    sql: `
      -- Idempotency-Key on POST/PATCH (draft-ietf-httpapi-idempotency-key-header): the first
      -- request's answer, replayed for repeats of the same request for 24 hours.
      CREATE TABLE cp_idempotency (
        tenant_id uuid NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        status integer,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, key)
      );
    `,
  },
  {
    name: "revision status history",
    sql: `
      -- Every status a revision went through, with when and why ([{status, at, reason}], oldest
      -- first): the console's revision timeline. Appended by the statement that changes the status.
      ALTER TABLE cp_revisions ADD COLUMN status_history jsonb NOT NULL DEFAULT '[]';
      UPDATE cp_revisions SET status_history =
        jsonb_build_array(jsonb_build_object('status', 'QUEUED', 'at', created_at, 'reason', NULL))
        || CASE WHEN status = 'QUEUED' THEN '[]'::jsonb
                ELSE jsonb_build_array(jsonb_build_object('status', status, 'at', updated_at, 'reason', status_reason)) END;
    `,
  },
];
