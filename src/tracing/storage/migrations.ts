/** Tables of the tracing facility. Append new migrations; never edit applied ones. */
import type { Migration } from "../../shared/db/index.js";

export const tracingMigrations: Migration[] = [
  {
    name: "projects, runs, attachments, rollups, model prices",
    sql: `
      CREATE TABLE tracing_projects (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        name text NOT NULL,
        description text,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, name)
      );

      -- One row per run: posts and patches are merged on ingest, so reads never merge.
      CREATE TABLE tracing_runs (
        tenant_id uuid NOT NULL,
        id uuid NOT NULL,
        project_id uuid NOT NULL REFERENCES tracing_projects (id) ON DELETE CASCADE,
        trace_id uuid NOT NULL,
        parent_run_id uuid,
        dotted_order text,
        name text NOT NULL DEFAULT '',
        run_type text NOT NULL DEFAULT 'chain',
        status text NOT NULL,
        start_time timestamptz,
        end_time timestamptz,
        inputs jsonb,
        outputs jsonb,
        error text,
        extra jsonb,
        events jsonb,
        tags text[],
        serialized jsonb,
        session_name text,
        session_id uuid,
        reference_example_id uuid,
        -- fields a client may set directly (LangSmith's run schema)
        client_fields jsonb,
        -- derived on ingest
        thread_id text,
        model text,
        provider text,
        input_tokens bigint,
        output_tokens bigint,
        total_tokens bigint,
        input_token_details jsonb,
        output_token_details jsonb,
        usage_estimated boolean NOT NULL DEFAULT false,
        input_cost numeric,
        output_cost numeric,
        total_cost numeric,
        input_cost_details jsonb,
        output_cost_details jsonb,
        cost_source text,
        cost_reason text,
        price_id text,
        first_token_time timestamptz,
        ttft_ms double precision,
        problems text[],
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id)
      );
      CREATE INDEX tracing_runs_project_time ON tracing_runs (project_id, start_time DESC, id DESC);
      CREATE INDEX tracing_runs_roots ON tracing_runs (project_id, start_time DESC, id DESC) WHERE parent_run_id IS NULL;
      CREATE INDEX tracing_runs_trace ON tracing_runs (tenant_id, trace_id);
      CREATE INDEX tracing_runs_parent ON tracing_runs (tenant_id, parent_run_id) WHERE parent_run_id IS NOT NULL;
      CREATE INDEX tracing_runs_thread ON tracing_runs (project_id, thread_id, start_time) WHERE thread_id IS NOT NULL;

      -- Base64 media moved out of run payloads; the payload keeps attachment://<name>.
      CREATE TABLE tracing_attachments (
        tenant_id uuid NOT NULL,
        run_id uuid NOT NULL,
        name text NOT NULL,
        content_type text NOT NULL,
        data bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, run_id, name)
      );

      -- Hourly aggregates per project and model, kept current on ingest, so stats over time read
      -- these and never raw runs. model = '' holds the trace-level figures (root runs).
      -- Histograms are log-scale latency buckets (see accounting/histogram.ts), summed elementwise.
      CREATE TABLE tracing_rollups (
        project_id uuid NOT NULL REFERENCES tracing_projects (id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        model text NOT NULL,
        run_count bigint NOT NULL DEFAULT 0,
        trace_count bigint NOT NULL DEFAULT 0,
        error_count bigint NOT NULL DEFAULT 0,
        llm_count bigint NOT NULL DEFAULT 0,
        llm_error_count bigint NOT NULL DEFAULT 0,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        total_tokens bigint NOT NULL DEFAULT 0,
        total_cost numeric NOT NULL DEFAULT 0,
        latency_hist int[] NOT NULL DEFAULT '{}',
        ttft_hist int[] NOT NULL DEFAULT '{}',
        PRIMARY KEY (project_id, hour, model)
      );

      -- Per-tenant prices; they win over the defaults shipped with Berth.
      CREATE TABLE tracing_model_prices (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        model_name text NOT NULL,
        match_pattern text NOT NULL,
        provider text,
        effective_from timestamptz,
        input_per_million numeric NOT NULL,
        output_per_million numeric NOT NULL,
        input_details_per_million jsonb NOT NULL DEFAULT '{}',
        output_details_per_million jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX tracing_model_prices_tenant ON tracing_model_prices (tenant_id);
    `,
  },
  {
    name: "run list indexes in the order the list reads them",
    sql: `
      -- Lists sort newest first with runs not yet started (a patch before its post) last; an index
      -- on start_time DESC puts NULLs first, so Postgres sorted whole projects instead of reading it.
      DROP INDEX tracing_runs_project_time;
      DROP INDEX tracing_runs_roots;
      CREATE INDEX tracing_runs_project_time ON tracing_runs (project_id, start_time DESC NULLS LAST, id DESC);
      CREATE INDEX tracing_runs_roots ON tracing_runs (project_id, start_time DESC NULLS LAST, id DESC) WHERE parent_run_id IS NULL;
    `,
  },
  {
    name: "pending runs by age, for the abandoned-run sweep",
    sql: `
      -- The sweep looks for runs still pending long after their start; only pending runs are indexed.
      CREATE INDEX tracing_runs_pending_age ON tracing_runs ((coalesce(start_time, created_at))) WHERE status = 'pending';
    `,
  },
  {
    name: "LangSmith API: feedback, run shares, project end time and extra",
    sql: `
      -- LangSmith's session fields a client may set (updateProject) besides name and description.
      ALTER TABLE tracing_projects ADD COLUMN end_time timestamptz, ADD COLUMN extra jsonb NOT NULL DEFAULT '{}', ADD COLUMN reference_dataset_id uuid;

      -- Feedback on runs (or on a project). project_id is set when the run is known, so a
      -- project's delete takes its feedback and project stats aggregate it.
      CREATE TABLE tracing_feedback (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        run_id uuid,
        trace_id uuid,
        project_id uuid REFERENCES tracing_projects (id) ON DELETE CASCADE,
        key text NOT NULL,
        score double precision,
        value jsonb,
        comment text,
        correction jsonb,
        feedback_source jsonb,
        comparative_experiment_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX tracing_feedback_run ON tracing_feedback (tenant_id, run_id);
      CREATE INDEX tracing_feedback_project ON tracing_feedback (project_id, key);

      -- Public read-only links to a trace: the token is the whole credential.
      CREATE TABLE tracing_run_shares (
        share_token uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        run_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, run_id)
      );
    `,
  },
  {
    name: "datasets, example versions, dataset tags",
    sql: `
      CREATE TABLE tracing_datasets (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        name text NOT NULL,
        description text,
        data_type text NOT NULL DEFAULT 'kv',
        inputs_schema_definition jsonb,
        outputs_schema_definition jsonb,
        -- LangSmith's dataset extra (its metadata lives in extra.metadata)
        extra jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        -- the dataset's latest version: every write of examples moves it forward by at least 1 ms
        modified_at timestamptz NOT NULL,
        UNIQUE (tenant_id, name)
      );

      -- Every state of every example: a row holds one state from valid_from until valid_to (NULL:
      -- still current). A write closes the current row and opens a new one at the dataset's new
      -- version time, so "the dataset as of T" is the rows valid at T, and nothing is rewritten.
      CREATE TABLE tracing_examples (
        tenant_id uuid NOT NULL,
        dataset_id uuid NOT NULL REFERENCES tracing_datasets (id) ON DELETE CASCADE,
        id uuid NOT NULL,
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        created_at timestamptz NOT NULL,
        inputs jsonb NOT NULL,
        outputs jsonb,
        metadata jsonb NOT NULL DEFAULT '{}',
        source_run_id uuid,
        PRIMARY KEY (id, valid_from)
      );
      CREATE UNIQUE INDEX tracing_examples_current ON tracing_examples (id) WHERE valid_to IS NULL;
      CREATE INDEX tracing_examples_dataset_current ON tracing_examples (dataset_id, created_at, id) WHERE valid_to IS NULL;
      CREATE INDEX tracing_examples_dataset_versions ON tracing_examples (dataset_id, valid_from);

      -- Named versions of a dataset (updateDatasetTag); "latest" is implicit.
      CREATE TABLE tracing_dataset_tags (
        dataset_id uuid NOT NULL REFERENCES tracing_datasets (id) ON DELETE CASCADE,
        tag text NOT NULL,
        as_of timestamptz NOT NULL,
        PRIMARY KEY (dataset_id, tag)
      );
      CREATE INDEX tracing_projects_reference_dataset ON tracing_projects (reference_dataset_id) WHERE reference_dataset_id IS NOT NULL;
      CREATE INDEX tracing_runs_reference_example ON tracing_runs (tenant_id, reference_example_id) WHERE reference_example_id IS NOT NULL;
    `,
  },
  {
    name: "run lists' roots include orphans (query/roots.ts)",
    sql: `
      CREATE INDEX tracing_runs_tops ON tracing_runs (project_id, start_time DESC NULLS LAST, id DESC) WHERE (parent_run_id IS NULL OR strpos(dotted_order, '.') = 0);
    `,
  },
  {
    name: "comparative (pairwise) experiments, feedback groups",
    sql: `
      -- A named comparison of experiments (projects) of one dataset; its verdicts are feedback on
      -- the compared runs that carries comparative_experiment_id.
      CREATE TABLE tracing_comparative_experiments (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        name text NOT NULL,
        description text,
        reference_dataset_id uuid NOT NULL REFERENCES tracing_datasets (id) ON DELETE CASCADE,
        extra jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        modified_at timestamptz NOT NULL
      );
      CREATE INDEX tracing_comparative_dataset ON tracing_comparative_experiments (reference_dataset_id, created_at);
      CREATE TABLE tracing_comparative_experiment_sessions (
        comparative_experiment_id uuid NOT NULL REFERENCES tracing_comparative_experiments (id) ON DELETE CASCADE,
        project_id uuid NOT NULL REFERENCES tracing_projects (id) ON DELETE CASCADE,
        position int NOT NULL,
        PRIMARY KEY (comparative_experiment_id, project_id)
      );
      -- The feedbacks of one pairwise comparison (one evaluator call over one example's runs).
      ALTER TABLE tracing_feedback ADD COLUMN feedback_group_id uuid;
      CREATE INDEX tracing_feedback_comparative ON tracing_feedback (comparative_experiment_id, key) WHERE comparative_experiment_id IS NOT NULL;
    `,
  },
  {
    name: "staged ingest: requests append to a staging table, a background worker merges it",
    sql: `
      -- One row per accepted ingest request, written before the request is answered (so nothing
      -- accepted is lost), deleted by the transaction that merges it into tracing_runs and the
      -- rollups (so nothing is merged twice): ingest/merge-worker.ts. The body is what the request
      -- sent (multipart, compressed as sent) or its prepared runs as JSON: bytes, never parsed by
      -- Postgres, and not compressed again (STORAGE EXTERNAL).
      CREATE TABLE tracing_staged (
        seq bigserial PRIMARY KEY,
        tenant_id uuid NOT NULL,
        scope text,
        format text NOT NULL,
        content_type text,
        content_encoding text,
        body bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      ALTER TABLE tracing_staged ALTER COLUMN body SET STORAGE EXTERNAL;
      CREATE INDEX tracing_staged_created ON tracing_staged (created_at);

      -- What the merge could not store, with why: kept (and logged), never retried, so one bad
      -- run or request never holds up the ones behind it.
      CREATE TABLE tracing_ingest_failures (
        id bigserial PRIMARY KEY,
        tenant_id uuid NOT NULL,
        run_id text,
        seq bigint,
        error text NOT NULL,
        op text,
        failed_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX tracing_ingest_failures_tenant ON tracing_ingest_failures (tenant_id, failed_at);
    `,
  },
  {
    name: "example attachments: content-addressed blobs, per-version references, a signing key",
    sql: `
      -- Files of examples, stored once per tenant by content (sha256): every version of every
      -- example that has the same bytes points at one row. Bytes, never parsed or recompressed.
      CREATE TABLE tracing_example_blobs (
        tenant_id uuid NOT NULL,
        sha256 text NOT NULL,
        size bigint NOT NULL,
        data bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, sha256)
      );
      ALTER TABLE tracing_example_blobs ALTER COLUMN data SET STORAGE EXTERNAL;

      -- The files of one version of an example (a row of tracing_examples): a new version copies
      -- the references it keeps, so reading an old version (as_of) shows the files it had.
      CREATE TABLE tracing_example_attachments (
        tenant_id uuid NOT NULL,
        example_id uuid NOT NULL,
        valid_from timestamptz NOT NULL,
        name text NOT NULL,
        sha256 text NOT NULL,
        mime_type text NOT NULL,
        size bigint NOT NULL,
        PRIMARY KEY (example_id, valid_from, name),
        FOREIGN KEY (example_id, valid_from) REFERENCES tracing_examples (id, valid_from) ON DELETE CASCADE
      );
      CREATE INDEX tracing_example_attachments_blob ON tracing_example_attachments (tenant_id, sha256);

      -- Keys for links that carry their own credential (signed attachment URLs): one per purpose,
      -- made once, read by every replica.
      CREATE TABLE tracing_signing_keys (
        purpose text PRIMARY KEY,
        secret bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    name: "a tenant's staged requests, for reads that wait for every process's merges",
    sql: `
      -- Read-your-writes across processes (ingest/merge-worker.ts drain): a read looks for its
      -- tenant's requests staged before it and not merged yet, by any process or replica.
      CREATE INDEX tracing_staged_tenant ON tracing_staged (tenant_id, seq);
    `,
  },
];
