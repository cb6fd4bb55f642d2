/**
 * The agent server's tables. The LangGraph checkpointer and store create their own tables
 * (checkpoints, checkpoint_blobs, checkpoint_writes, store…) through their `setup()`.
 *
 * The run queue is the `runs` table (graphile-worker style: the table *is* the queue):
 * - `seq` orders runs by arrival; runs on one thread execute one at a time in `seq` order;
 * - `status` moves pending → running → success | error | timeout | interrupted;
 * - a running run holds a lease (`lease_owner`, `lease_expires_at`) renewed by its worker's
 *   heartbeat; a lapsed lease puts it back to pending (or fails it after `max_attempts`);
 * - `one_running_run_per_thread` makes "at most one active run per thread" a database invariant.
 */
import type { Migration } from "../../shared/db/index.js";

export const agentServerMigrations: Migration[] = [
  {
    name: "assistants, threads, runs, run events, crons",
    sql: `
CREATE TABLE assistants (
  assistant_id uuid PRIMARY KEY,
  graph_id text NOT NULL,
  config jsonb NOT NULL DEFAULT '{}',
  context jsonb NOT NULL DEFAULT '{}',
  metadata jsonb NOT NULL DEFAULT '{}',
  name text NOT NULL,
  description text,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX assistants_graph_id ON assistants (graph_id);
CREATE INDEX assistants_created_at ON assistants (created_at DESC);

CREATE TABLE assistant_versions (
  assistant_id uuid NOT NULL REFERENCES assistants ON DELETE CASCADE,
  version integer NOT NULL,
  graph_id text NOT NULL,
  config jsonb NOT NULL DEFAULT '{}',
  context jsonb NOT NULL DEFAULT '{}',
  metadata jsonb NOT NULL DEFAULT '{}',
  name text NOT NULL,
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (assistant_id, version)
);

CREATE TABLE threads (
  thread_id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  state_updated_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}',
  config jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'idle',
  "values" jsonb,
  interrupts jsonb NOT NULL DEFAULT '{}',
  error jsonb,
  -- a thread made for a stateless run, deleted after it unless on_completion = keep
  temporary boolean NOT NULL DEFAULT false
);
CREATE INDEX threads_created_at ON threads (created_at DESC);
CREATE INDEX threads_metadata ON threads USING gin (metadata jsonb_path_ops);

CREATE TABLE runs (
  run_id uuid PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  thread_id uuid NOT NULL REFERENCES threads ON DELETE CASCADE,
  assistant_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- a run is not claimed before this moment (after_seconds)
  available_at timestamptz NOT NULL DEFAULT now(),
  status text NOT NULL DEFAULT 'pending',
  metadata jsonb NOT NULL DEFAULT '{}',
  kwargs jsonb NOT NULL DEFAULT '{}',
  multitask_strategy text NOT NULL,
  attempt integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz,
  -- set by a cancel request; the worker holding the run reads it on its next heartbeat
  cancel_action text,
  -- the thread's newest checkpoint when the run first started: rollback and resume start here
  start_checkpoint_id text,
  started_at timestamptz,
  ended_at timestamptz,
  error jsonb,
  webhook text,
  webhook_sent_at timestamptz
);
CREATE INDEX runs_thread ON runs (thread_id, seq);
CREATE INDEX runs_pending ON runs (seq) WHERE status = 'pending';
CREATE INDEX runs_running_lease ON runs (lease_expires_at) WHERE status = 'running';
CREATE UNIQUE INDEX one_running_run_per_thread ON runs (thread_id) WHERE status = 'running';

-- Every stream event of a run, kept so a client that reconnects (or joins late, from any API
-- replica) receives what it missed. Removed with the run, or by the sweeper after a TTL.
CREATE TABLE run_events (
  run_id uuid NOT NULL REFERENCES runs ON DELETE CASCADE,
  seq integer NOT NULL,
  event text NOT NULL,
  data text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE crons (
  cron_id uuid PRIMARY KEY,
  assistant_id uuid NOT NULL,
  thread_id uuid REFERENCES threads ON DELETE CASCADE,
  schedule text NOT NULL,
  timezone text,
  payload jsonb NOT NULL DEFAULT '{}',
  metadata jsonb NOT NULL DEFAULT '{}',
  on_run_completed text NOT NULL DEFAULT 'delete',
  enabled boolean NOT NULL DEFAULT true,
  end_time timestamptz,
  next_run_date timestamptz,
  user_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX crons_due ON crons (next_run_date) WHERE enabled;
`,
  },
  {
    name: "A2A tasks",
    sql: `
-- An A2A task is one turn of a conversation (context = thread), backed by the run that executes it;
-- a task waiting at interrupt() is resumed by a later run, so run_id is the task's current run.
CREATE TABLE a2a_tasks (
  task_id uuid PRIMARY KEY,
  context_id text NOT NULL,
  thread_id uuid NOT NULL REFERENCES threads ON DELETE CASCADE,
  assistant_id uuid NOT NULL,
  run_id uuid NOT NULL,
  -- the user's message that opened the task, as sent (A2A shape)
  message jsonb NOT NULL,
  canceled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX a2a_tasks_thread ON a2a_tasks (thread_id, created_at);
`,
  },
  {
    name: "A2A push notification configs",
    sql: `
CREATE TABLE a2a_push_configs (
  task_id uuid NOT NULL REFERENCES a2a_tasks ON DELETE CASCADE,
  config_id text NOT NULL,
  url text NOT NULL,
  token text,
  authentication jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task_id, config_id)
);
`,
  },
  {
    name: "A2A push configs remember their dialect",
    // a config made through a v1.0 method is notified with a v1.0 StreamResponse ({task}), a v0.3 one with the Task
    sql: `ALTER TABLE a2a_push_configs ADD COLUMN dialect text NOT NULL DEFAULT 'v0.3';`,
  },
  {
    name: "thread and store item TTLs",
    // Runs after the checkpointer's and store's own setup (see startAgentServer), so `store` exists.
    sql: `
-- A thread with a TTL expires ttl_minutes after its last update: every update stamps updated_at,
-- and the trigger keeps expires_at in step, so no write path has to remember the TTL.
ALTER TABLE threads ADD COLUMN ttl_minutes double precision, ADD COLUMN expires_at timestamptz;
CREATE FUNCTION berth_thread_expiry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.expires_at := CASE WHEN NEW.ttl_minutes IS NULL THEN NULL ELSE NEW.updated_at + NEW.ttl_minutes * interval '1 minute' END;
  RETURN NEW;
END $$;
CREATE TRIGGER threads_expiry BEFORE INSERT OR UPDATE OF updated_at, ttl_minutes ON threads
  FOR EACH ROW EXECUTE FUNCTION berth_thread_expiry();
CREATE INDEX threads_expires_at ON threads (expires_at) WHERE expires_at IS NOT NULL;

-- An item's own TTL, so a read refreshes it by that many minutes (not by the default).
ALTER TABLE store ADD COLUMN IF NOT EXISTS ttl_minutes double precision;
-- A read that refreshes an expiry does not update the item: the store's trigger stamped
-- updated_at on every UPDATE, now only when the value changes (puts set updated_at themselves).
DROP TRIGGER IF EXISTS update_store_updated_at ON store;
CREATE TRIGGER update_store_updated_at BEFORE UPDATE OF value ON store FOR EACH ROW EXECUTE FUNCTION update_updated_at_column();
`,
  },
  {
    name: "Stream events stored in blocks",
    // one row per emitter write, keyed by its last seq; first_seq NULL = an older one-event row (storage/events.ts)
    sql: `ALTER TABLE run_events ADD COLUMN first_seq integer;`,
  },
  {
    name: "thread expiry trigger only for threads that have or had a TTL",
    // Every run writes its thread's updated_at two or three times, and each write called the
    // PL/pgSQL function even for a thread without a TTL, where it only sets expires_at to the NULL it
    // already is. The WHEN clause (evaluated without calling it) skips exactly those rows: the
    // function is called whenever it could change something.
    sql: `
DROP TRIGGER threads_expiry ON threads;
CREATE TRIGGER threads_expiry BEFORE INSERT OR UPDATE OF updated_at, ttl_minutes ON threads
  FOR EACH ROW WHEN (NEW.ttl_minutes IS NOT NULL OR NEW.expires_at IS NOT NULL) EXECUTE FUNCTION berth_thread_expiry();
`,
  },
  {
    name: "lease sweep and heartbeat without the lease index",
    // runs_running_lease (lease_expires_at WHERE status = 'running') kept an entry for every run
    // that ever ran until VACUUM: its key only grows, so no insert revisits old pages, and its only
    // readers were bitmap scans (the sweep; the heartbeat, ANDed with the primary key), which never
    // mark dead entries. On a runs table not yet analyzed (a new deployment's first minutes, an
    // autovacuum that is behind) Postgres chose it for both, and each sweep read every run that
    // ever ran (bench, 20k runs: 1429 blocks a sweep, growing with the table; 11 without it). The
    // running runs are few (the workers' slots) and one_running_run_per_thread holds exactly
    // them: the sweep reads them all there. Also, a heartbeat no longer changes an indexed column.
    sql: `DROP INDEX IF EXISTS runs_running_lease;`,
  },
];
