/**
 * Generated from the tracing API's OpenAPI document (/tracing/openapi.json) by scripts/gen-console-api.ts: do not edit.
 * Regenerate with `npm run gen:api` after changing a route or its schemas.
 */

export interface paths {
    "/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server version and ingestion settings (read by the LangSmith SDKs) */
        get: operations["getInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ok": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and database check */
        get: operations["getOk"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/public/{share_token}/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A shared run (no key needed) */
        get: operations["getPublicShareTokenRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/public/{share_token}/trace": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The shared run's trace as a tree (no key needed) */
        get: operations["getPublicShareTokenTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/public/{share_token}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The runs of the shared run's trace (no key needed) */
        get: operations["getPublicShareTokenRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/public/{share_token}/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One run of a shared trace with its rendered messages (the console's shared-trace page; no key needed) */
        get: operations["getPublicShareTokenRunsRunId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/public/{share_token}/runs/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The runs of a shared trace in LangSmith's v2 schema (client.public.runs.query; no key needed) */
        post: operations["postApiV2PublicShareTokenRunsQuery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/public/{share_token}/run/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One run of a shared trace in LangSmith's v2 schema (client.public.runs.retrieve; no key needed) */
        get: operations["getApiV2PublicShareTokenRunRunId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/public/example-attachments/{sha}256": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The bytes of an example attachment, through a signed link from `attachment_urls` (no key needed: the signature is the credential) */
        get: operations["getPublicExampleAttachmentsSha256"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs/multipart": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ingest runs as multipart/form-data (the LangSmith SDKs' default path; gzip allowed) */
        post: operations["postRunsMultipart"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ingest runs as JSON {post: [...], patch: [...]} */
        post: operations["postRunsBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List runs (newest first, cursor pagination) */
        get: operations["getRuns"];
        put?: never;
        /** Create one run */
        post: operations["postRuns"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run with its payloads, normalised messages, children, feedback and (roots) trace totals */
        get: operations["getRunsRunId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update one run */
        patch: operations["patchRunsRunId"];
        trace?: never;
    };
    "/otel/v1/traces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** OTLP/HTTP traces (protobuf or JSON, gzip allowed); also served at /api/v1/otel/v1/traces and /v1/traces */
        post: operations["postOtelV1Traces"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/datasets/{dataset_id}/examples": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create examples (multipart: {id} JSON, {id}.inputs, {id}.outputs, files as {id}.attachment.{name} typed `mime; length=N`); all or nothing, at one new dataset version */
        post: operations["postV1PlatformDatasetsDatasetIdExamples"];
        delete?: never;
        options?: never;
        head?: never;
        /** Change examples (multipart, as for create; absent parts keep their values). Files: new uploads and {id}.attachments_operations {rename, retain}; with either, files neither retained nor renamed are dropped. At one new dataset version (older versions keep their files) */
        patch: operations["patchV1PlatformDatasetsDatasetIdExamples"];
        trace?: never;
    };
    "/datasets/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a dataset from a CSV file (multipart: file, input_keys, output_keys, name, description, data_type); one example per row, cells as strings */
        post: operations["postDatasetsUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tracing projects with their stats */
        get: operations["getProjects"];
        put?: never;
        /** Create a tracing project */
        post: operations["postProjects"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/projects/{project_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A project with its stats */
        get: operations["getProjectsProjectId"];
        put?: never;
        post?: never;
        /** Delete a project and its runs */
        delete: operations["deleteProjectsProjectId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/projects/{project_id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Tokens, cost, latency, TTFT and errors over time (hour/day buckets, UTC) */
        get: operations["getProjectsProjectIdStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/projects/{project_id}/threads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Conversations of a project (by thread_id / session_id / conversation_id metadata) */
        get: operations["getProjectsProjectIdThreads"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/projects/{project_id}/threads/{thread_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The turns of one conversation, oldest first */
        get: operations["getProjectsProjectIdThreadsThreadId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs/{run_id}/attachments/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An attachment of a run (media moved out of its payload) */
        get: operations["getRunsRunIdAttachmentsName"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/traces/{trace_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A trace as a tree of runs, with its totals */
        get: operations["getTracesTraceId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/model-prices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The price table: this tenant's entries, then the defaults */
        get: operations["getModelPrices"];
        put?: never;
        /** Add a price (wins over the defaults for the models it matches) */
        post: operations["postModelPrices"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/model-prices/{price_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a price of this tenant */
        delete: operations["deleteModelPricesPriceId"];
        options?: never;
        head?: never;
        /** Change a price of this tenant */
        patch: operations["patchModelPricesPriceId"];
        trace?: never;
    };
    "/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List projects (LangSmith sessions); `name` matches exactly */
        get: operations["getSessions"];
        put?: never;
        /** Create a project (`?upsert=true`: answer the existing one of that name) */
        post: operations["postSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A project with its stats */
        get: operations["getSessionsSessionId"];
        put?: never;
        post?: never;
        /** Delete a project with its runs and feedback */
        delete: operations["deleteSessionsSessionId"];
        options?: never;
        head?: never;
        /** Rename a project or change its description, metadata or end time */
        patch: operations["patchSessionsSessionId"];
        trace?: never;
    };
    "/runs/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Query runs with LangSmith's filters and filter language; cursor pages */
        post: operations["postRunsQuery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Aggregates over the runs a filter selects (latencies in seconds) */
        post: operations["postRunsStats"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/runs/{run_id}/share": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The run's public link token, or null when it is not shared */
        get: operations["getRunsRunIdShare"];
        /** Share a run's trace through a public read-only link */
        put: operations["putRunsRunIdShare"];
        post?: never;
        /** Stop sharing a run (its link answers 404 from now on) */
        delete: operations["deleteRunsRunIdShare"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/runs/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Query runs (client.runs.query): filters, filter expressions, selects, cursor pages */
        post: operations["postApiV2RunsQuery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One run of a project (client.runs.retrieve) */
        get: operations["getApiV2RunsRunId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/runs/{run_id}/url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The console URL of a run (client.runs.getURL) */
        get: operations["getApiV2RunsRunIdUrl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/runs/{run_id}/share": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Share a run's trace (client.runs.share.create): the trace's root gets the link, an existing one is kept */
        post: operations["postApiV2RunsRunIdShare"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/runs/{trace_id}/share": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Stop sharing a trace (client.runs.share.delete); 204 whether or not it was shared */
        delete: operations["deleteApiV2RunsTraceIdShare"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/traces/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Traces of a project, newest first (client.traces.query): root runs with trace totals; the last day unless min_start_time says otherwise */
        post: operations["postApiV2TracesQuery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/traces/{trace_id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The runs of one trace, in start order (client.traces.listRuns) */
        get: operations["getApiV2TracesTraceIdRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/threads/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Conversations of a project, latest first (client.threads.query) */
        post: operations["postApiV2ThreadsQuery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/threads/{thread_id}/traces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The turns of a conversation, oldest first (client.threads.listTraces) */
        get: operations["getApiV2ThreadsThreadIdTraces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/threads/{thread_id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Aggregates of one conversation (client.threads.stats): the selected ones */
        get: operations["getApiV2ThreadsThreadIdStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Projects with their stats, newest first (client.sessions.listV2); `name` matches exactly */
        get: operations["getApiV2Sessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List feedback by run, key, source type or project, oldest first */
        get: operations["getFeedback"];
        put?: never;
        /** Create feedback on a run (or a project) */
        post: operations["postFeedback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/feedback/{feedback_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One feedback */
        get: operations["getFeedbackFeedbackId"];
        put?: never;
        post?: never;
        /** Delete one feedback */
        delete: operations["deleteFeedbackFeedbackId"];
        options?: never;
        head?: never;
        /** Change score, value, comment or correction (null clears) */
        patch: operations["patchFeedbackFeedbackId"];
        trace?: never;
    };
    "/datasets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List datasets, newest first; `name` matches exactly, `metadata` is a JSON object the dataset's metadata contains */
        get: operations["getDatasets"];
        put?: never;
        /** Create a dataset (metadata in extra.metadata, as the SDK sends it) */
        post: operations["postDatasets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/datasets/{dataset_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A dataset with its example and experiment counts */
        get: operations["getDatasetsDatasetId"];
        put?: never;
        post?: never;
        /** Delete a dataset with its examples, versions and experiments */
        delete: operations["deleteDatasetsDatasetId"];
        options?: never;
        head?: never;
        /** Rename a dataset or change its description, metadata or schemas */
        patch: operations["patchDatasetsDatasetId"];
        trace?: never;
    };
    "/datasets/{dataset_id}/version": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The version in effect at `as_of`, or the one `tag` names */
        get: operations["getDatasetsDatasetIdVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/datasets/{dataset_id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every version of a dataset with its tags, newest first */
        get: operations["getDatasetsDatasetIdVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/datasets/{dataset_id}/versions/diff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Examples added, changed and removed between two versions (timestamps, tags or 'latest') */
        get: operations["getDatasetsDatasetIdVersionsDiff"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/datasets/{dataset_id}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Tag an exact version (moving the tag if it named another) */
        put: operations["putDatasetsDatasetIdTags"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/datasets/{dataset_id}/splits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The splits of a dataset's examples (at `as_of`) */
        get: operations["getDatasetsDatasetIdSplits"];
        /** Add examples to a split, or remove them from it (older SDKs) */
        put: operations["putDatasetsDatasetIdSplits"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/datasets/{dataset_id}/examples/metadata": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Apply metadata changes (SET, ARRAY_ADD, ARRAY_REMOVE; splits: dataset_split) to examples together, at one new version (client.datasets.examples.updateMetadata); examples not in the dataset are skipped */
        patch: operations["patchV1PlatformDatasetsDatasetIdExamplesMetadata"];
        trace?: never;
    };
    "/datasets/{dataset_id}/experiments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Experiments run against a dataset (projects with reference_dataset_id), newest first, with stats and aggregate feedback scores */
        get: operations["getDatasetsDatasetIdExperiments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/datasets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Datasets in cursor pages, sorted as asked (client.datasets.listV2); `name` matches exactly, `metadata` is a JSON object the dataset's metadata contains */
        get: operations["getApiV2Datasets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v2/datasets/{dataset_id}/experiment-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A page of the dataset's current examples (oldest first, or by an experiment's feedback score with `sort`), each with its root runs in the experiments asked for (client.datasets.experimentRuns.query). `filters` maps an experiment id to filter expressions its runs must match; `selects` picks run fields (default: id); with `comparative_experiment_id` the runs' feedback_stats count only that comparison's feedback */
        post: operations["postApiV2DatasetsDatasetIdExperimentRuns"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/datasets/comparative": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a comparative (pairwise) experiment over experiments of one dataset */
        post: operations["postDatasetsComparative"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/datasets/{dataset_id}/comparative": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A dataset's comparative experiments (newest first by default) with their preference counts */
        get: operations["getDatasetsDatasetIdComparative"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/datasets/comparative/{comparative_experiment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a comparative experiment and the pairwise feedback given in it */
        delete: operations["deleteDatasetsComparativeComparativeExperimentId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/examples": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Examples of a dataset, oldest first: at a version (`as_of`: timestamp, tag or 'latest'), by ids, splits (any of), metadata (a JSON object they contain) and `filter` (LangSmith's filter language: has(metadata, '{…}'), exists(metadata, "k"), eq(metadata.k, "v"), and/or/not, search); files as signed links in attachment_urls */
        get: operations["getExamples"];
        put?: never;
        /** Create one example (JSON; older SDKs) */
        post: operations["postExamples"];
        /** Delete examples (soft: earlier versions still show them) */
        delete: operations["deleteExamples"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/examples/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create examples (JSON array; older SDKs); all or nothing */
        post: operations["postExamplesBulk"];
        delete?: never;
        options?: never;
        head?: never;
        /** Change examples (JSON array of {id, …}; older SDKs) */
        patch: operations["patchExamplesBulk"];
        trace?: never;
    };
    "/v1/platform/datasets/examples/delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Delete examples; hard_delete removes every version of them */
        post: operations["postV1PlatformDatasetsExamplesDelete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/datasets/{dataset_id}/examples/{example_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete one example of a dataset (client.datasets.examples.delete); soft, and done at once if it already was */
        delete: operations["deleteV1PlatformDatasetsDatasetIdExamplesExampleId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/examples/{example_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One example, now or at a version (`as_of`), with that version's files as signed links */
        get: operations["getExamplesExampleId"];
        put?: never;
        post?: never;
        /** Delete one example (soft: earlier versions still show it) */
        delete: operations["deleteExamplesExampleId"];
        options?: never;
        head?: never;
        /** Change one example (JSON; older SDKs; its files stay) */
        patch: operations["patchExamplesExampleId"];
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Attachment: {
            name: string;
            content_type: string;
            size: number;
            /** @description Where to fetch it (same origin, with the API key) */
            url: string;
        };
        ComparativeExperiment: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            tenant_id: string;
            name: string;
            description: string | null;
            /** Format: uuid */
            reference_dataset_id: string;
            extra: {
                [key: string]: unknown;
            };
            created_at: string;
            modified_at: string;
            /** @description The compared experiments, in the order given */
            experiments_info: {
                /** Format: uuid */
                id: string;
                name: string;
            }[];
            /** @description Per key: the comparison's feedback count, mean score and values */
            feedback_stats: {
                [key: string]: {
                    n: number;
                    avg: number | null;
                    values: {
                        [key: string]: number;
                    };
                };
            };
            /** @description Per key: comparisons made (one per evaluator call and example), ties, and per experiment id how often its run scored strictly highest */
            preferences: {
                [key: string]: {
                    comparisons: number;
                    ties: number;
                    preferred: {
                        [key: string]: number;
                    };
                };
            };
        };
        Dataset: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            tenant_id: string;
            name: string;
            description: string | null;
            data_type: string;
            inputs_schema_definition: {
                [key: string]: unknown;
            } | null;
            outputs_schema_definition: {
                [key: string]: unknown;
            } | null;
            metadata: {
                [key: string]: unknown;
            } | null;
            created_at: string;
            /** @description The latest version: examples as of this moment are the current ones */
            modified_at: string;
            example_count: number;
            /** @description Experiments (projects) run against this dataset */
            session_count: number;
            last_session_start_time: string | null;
        };
        DatasetDiff: {
            examples_added: string[];
            examples_modified: string[];
            examples_removed: string[];
        };
        DatasetExperiments: {
            /** Format: uuid */
            dataset_id: string;
            experiments: components["schemas"]["Project"][];
            offset: number;
        };
        DatasetVersion: {
            as_of: string;
            tags: string[];
        };
        DatasetsPageV2: {
            items: components["schemas"]["Dataset"][];
            next_cursor: string | null;
        };
        ErrorDetail: {
            detail: string;
        };
        Example: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            dataset_id: string;
            inputs: {
                [key: string]: unknown;
            };
            outputs: {
                [key: string]: unknown;
            } | null;
            /** @description dataset_split holds the example's splits */
            metadata: {
                [key: string]: unknown;
            };
            source_run_id: string | null;
            created_at: string;
            /** @description When this state of the example was written (its version) */
            modified_at: string;
            runs: unknown[];
            /** @description The files of this version, by "attachment.<name>" (null when none) */
            attachment_urls: {
                [key: string]: {
                    /** @description Absolute, signed and expiring: fetched without a key */
                    presigned_url: string;
                    mime_type: string;
                };
            } | null;
        };
        ExampleMetadataStatuses: {
            statuses: {
                /** Format: uuid */
                id: string;
                /** @enum {string} */
                status: "UPDATED" | "NOT_FOUND";
                description?: string;
            }[];
        };
        ExampleWithExperimentRuns: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            dataset_id: string;
            runs: ({
                /** Format: uuid */
                id: string;
            } & {
                [key: string]: unknown;
            })[];
        } & {
            [key: string]: unknown;
        };
        ExamplesWritten: {
            example_ids: string[];
            count: number;
        };
        ExperimentRunsPage: {
            items: components["schemas"]["ExampleWithExperimentRuns"][];
            next_cursor: string | null;
        };
        Feedback: {
            /** Format: uuid */
            id: string;
            run_id: string | null;
            trace_id: string | null;
            /** @description The run's project */
            session_id: string | null;
            key: string;
            score: number | null;
            value: unknown;
            comment: string | null;
            correction: unknown;
            feedback_source: {
                type: string;
                metadata: {
                    [key: string]: unknown;
                };
            } | null;
            comparative_experiment_id: string | null;
            /** @description Shared by the feedbacks of one pairwise comparison */
            feedback_group_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            modified_at: string;
        };
        FeedbackStats: {
            [key: string]: {
                n: number;
                avg: number | null;
                values: {
                    [key: string]: number;
                };
            };
        };
        HTTPValidationError: {
            detail: {
                loc: (string | number)[];
                msg: string;
                type: string;
            }[];
        };
        Health: {
            /** @constant */
            ok: true;
        };
        IngestResult: {
            /** @description Runs stored */
            accepted: number;
            /** @description Runs refused, with why */
            errors: {
                run_id?: string;
                error: string;
            }[];
            /** @description Runs stored with something fixed up or dropped */
            warnings: {
                run_id: string;
                problems: string[];
            }[];
        };
        /** @description A run in LangSmith's run schema (only the selected fields when `select` is given) */
        LangSmithRun: {
            /** Format: uuid */
            id: string;
        } & {
            [key: string]: unknown;
        };
        LangSmithRunStats: {
            [key: string]: unknown;
        };
        /** @description A run in LangSmith's v2 schema: the selected fields, lower case */
        LangSmithRunV2: {
            [key: string]: unknown;
        };
        LangSmithRunsPage: {
            runs: components["schemas"]["LangSmithRun"][];
            cursors: {
                next: string | null;
            };
        };
        LangSmithRunsPageV2: {
            items: components["schemas"]["LangSmithRunV2"][];
            next_cursor: string | null;
        };
        /** @description A project in LangSmith's session schema, with its stats */
        LangSmithSession: {
            /** Format: uuid */
            id: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A project in LangSmith's session schema */
        LangSmithSessionV2: {
            [key: string]: unknown;
        };
        LangSmithSessionsPageV2: {
            items: components["schemas"]["LangSmithSessionV2"][];
            next_cursor: string | null;
        };
        /** @description The selected aggregates */
        LangSmithThreadStatsV2: {
            [key: string]: unknown;
        };
        /** @description A turn of a conversation */
        LangSmithThreadTraceV2: {
            [key: string]: unknown;
        };
        LangSmithThreadTracesPageV2: {
            items: components["schemas"]["LangSmithThreadTraceV2"][];
            next_cursor: string | null;
        };
        /** @description A conversation with its totals */
        LangSmithThreadV2: {
            [key: string]: unknown;
        };
        LangSmithThreadsPageV2: {
            items: components["schemas"]["LangSmithThreadV2"][];
            next_cursor: string | null;
        };
        LangSmithTraceRunsV2: {
            items: components["schemas"]["LangSmithRunV2"][];
        };
        /** @description A trace: its root run and totals */
        LangSmithTraceV2: {
            [key: string]: unknown;
        };
        LangSmithTracesPageV2: {
            items: components["schemas"]["LangSmithTraceV2"][];
            next_cursor: string | null;
        };
        ModelPrice: {
            /** @description A UUID, or `default:<provider>:<model>` for a default */
            id: string;
            model_name: string;
            /** @description Regular expression on the model name (case-insensitive) */
            match_pattern: string;
            provider?: string | null;
            /** @description From when the price applies (ISO 8601 date or timestamp); none: always */
            effective_from?: (string) | null;
            input_per_million: number;
            output_per_million: number;
            input_details_per_million?: {
                [key: string]: number;
            };
            output_details_per_million?: {
                [key: string]: number;
            };
            /** @enum {string} */
            source: "default" | "tenant";
            /** Format: date-time */
            created_at?: string;
            /** Format: date-time */
            updated_at?: string;
        };
        ModelPriceCreateRequest: {
            model_name: string;
            match_pattern: string;
            provider?: string | null;
            effective_from?: string | null;
            input_per_million: number;
            output_per_million: number;
            input_details_per_million?: {
                [key: string]: number;
            };
            output_details_per_million?: {
                [key: string]: number;
            };
        };
        ModelPriceList: {
            /** @description This tenant's entries, then the defaults */
            prices: components["schemas"]["ModelPrice"][];
        };
        ModelPriceUpdateRequest: {
            model_name?: string;
            match_pattern?: string;
            provider?: string | null;
            effective_from?: string | null;
            input_per_million?: number;
            output_per_million?: number;
            input_details_per_million?: {
                [key: string]: number;
            };
            output_details_per_million?: {
                [key: string]: number;
            };
        };
        ModelUsage: {
            model: string | null;
            llm_count: number;
            input_tokens: number;
            output_tokens: number;
            total_tokens: number;
            total_cost: number;
            first_token_p50: number | null;
        };
        NativeBlock: {
            /** @constant */
            type: "text";
            text: string;
            annotations?: unknown[];
            extras?: {
                [key: string]: unknown;
            };
        } | {
            /** @constant */
            type: "reasoning";
            text: string;
            extras?: {
                [key: string]: unknown;
            };
        } | {
            /** @enum {string} */
            type: "image" | "file" | "audio" | "video";
            url?: string;
            base64?: string;
            id?: string;
            mime_type?: string;
            extras?: {
                [key: string]: unknown;
            };
        } | {
            /** @constant */
            type: "tool_call";
            id?: string;
            name: string;
            args: {
                [key: string]: unknown;
            };
        } | {
            /** @constant */
            type: "server_tool_call";
            id: string;
            name: string;
            args: {
                [key: string]: unknown;
            };
            extras?: {
                [key: string]: unknown;
            };
        } | {
            /** @constant */
            type: "server_tool_result";
            tool_call_id: string;
            id?: string;
            /** @enum {string} */
            status: "success" | "error";
            output?: unknown;
        } | {
            /** @constant */
            type: "invalid_tool_call";
            id?: string;
            name?: string;
            /** @description As sent */
            args: string;
            error: string;
        } | {
            /** @constant */
            type: "non_standard";
            value: unknown;
        };
        NativeMessage: {
            /** @enum {string} */
            role: "system" | "reasoning" | "user" | "assistant" | "tool";
            content: components["schemas"]["NativeBlock"][];
            tool_call_id?: string;
            /**
             * @description Only on tool messages whose tool reported a failure
             * @constant
             */
            status?: "error";
            usage_metadata?: {
                [key: string]: unknown;
            };
        };
        Project: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            tenant_id: string;
            name: string;
            description: string | null;
            metadata: {
                [key: string]: unknown;
            };
            extra: {
                [key: string]: unknown;
            };
            end_time: string | null;
            /** @description Experiments: the dataset they ran on */
            reference_dataset_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description Absent in the answer to a create */
            stats?: components["schemas"]["ProjectStats"];
        };
        ProjectCreateRequest: {
            name: string;
            description?: string | null;
            metadata?: {
                [key: string]: unknown;
            };
        };
        ProjectList: {
            projects: components["schemas"]["Project"][];
            offset: number;
        };
        ProjectStats: {
            run_count: number;
            trace_count: number;
            /** @description Traces whose root run failed */
            error_count: number;
            /** @description error_count / trace_count; null without traces */
            error_rate: number | null;
            llm_count: number;
            input_tokens: number;
            output_tokens: number;
            total_tokens: number;
            /** @description US dollars */
            total_cost: number;
            latency_p50: number | null;
            latency_p99: number | null;
            /** @description Time to first token, ms */
            first_token_p50: number | null;
            first_token_p99: number | null;
            last_run_start_time: string | null;
            feedback_stats?: components["schemas"]["FeedbackStats"];
        };
        RenderedMessages: {
            rendered: boolean;
            /**
             * @description The format the messages were read from
             * @enum {string}
             */
            format?: "native" | "openai" | "anthropic" | "langchain";
            messages?: components["schemas"]["NativeMessage"][];
            warnings?: string[];
            /** @description Why the run is shown raw */
            reason?: string;
        };
        RunCost: {
            input_cost: number | null;
            output_cost: number | null;
            total_cost: number;
            input_cost_details: {
                [key: string]: number;
            };
            output_cost_details: {
                [key: string]: number;
            };
            /** @description Sent by the client, or computed from the price table */
            source: ("client" | "price") | null;
            price_id: string | null;
        };
        RunDetail: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            trace_id: string;
            parent_run_id: string | null;
            dotted_order: string | null;
            /** Format: uuid */
            project_id: string;
            /**
             * Format: uuid
             * @description The project id (LangSmith's name for it)
             */
            session_id: string;
            name: string;
            run_type: string;
            /** @enum {string} */
            status: "pending" | "success" | "error";
            start_time: string | null;
            end_time: string | null;
            latency_ms: number | null;
            error: string | null;
            tags: string[];
            metadata: {
                [key: string]: unknown;
            };
            thread_id: string | null;
            model: string | null;
            provider: string | null;
            usage: components["schemas"]["TokenUsage"] | null;
            cost: components["schemas"]["RunCost"] | null;
            /** @description Why the run has no cost */
            cost_reason: string | null;
            first_token_time: string | null;
            ttft_ms: number | null;
            prompt_tokens: number | null;
            completion_tokens: number | null;
            total_tokens: number | null;
            prompt_cost: number | null;
            completion_cost: number | null;
            total_cost: number | null;
            /** @description What ingestion fixed up or dropped */
            problems: string[];
            inputs: {
                [key: string]: unknown;
            } | null;
            outputs: {
                [key: string]: unknown;
            } | null;
            extra: {
                [key: string]: unknown;
            } | null;
            events: {
                [key: string]: unknown;
            }[];
            serialized: {
                [key: string]: unknown;
            } | null;
            reference_example_id: string | null;
            attachments: components["schemas"]["Attachment"][];
            /** @description LLM runs only: the messages in the native format */
            messages: components["schemas"]["RenderedMessages"] | null;
            /** @description GET /runs/{id}: the run's page in the console (relative to its origin) */
            app_path?: string;
            /** @description GET /runs/{id}: ancestors, root first */
            parent_run_ids?: string[];
            /** @description GET /runs/{id}: direct children in execution order */
            child_run_ids?: string[];
            /** @description GET /runs/{id}: feedback on the run per key */
            feedback_stats?: components["schemas"]["FeedbackStats"];
            /** @description GET /runs/{id} of a root run: the totals of its trace */
            trace?: components["schemas"]["TraceTotals"] | null;
        };
        RunList: {
            runs: components["schemas"]["RunSummary"][];
            next_cursor: string | null;
        };
        RunShare: {
            /** Format: uuid */
            run_id: string;
            /** Format: uuid */
            share_token: string;
        };
        RunSummary: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            trace_id: string;
            parent_run_id: string | null;
            dotted_order: string | null;
            /** Format: uuid */
            project_id: string;
            /**
             * Format: uuid
             * @description The project id (LangSmith's name for it)
             */
            session_id: string;
            name: string;
            run_type: string;
            /** @enum {string} */
            status: "pending" | "success" | "error";
            start_time: string | null;
            end_time: string | null;
            latency_ms: number | null;
            error: string | null;
            tags: string[];
            metadata: {
                [key: string]: unknown;
            };
            thread_id: string | null;
            model: string | null;
            provider: string | null;
            usage: components["schemas"]["TokenUsage"] | null;
            cost: components["schemas"]["RunCost"] | null;
            /** @description Why the run has no cost */
            cost_reason: string | null;
            first_token_time: string | null;
            ttft_ms: number | null;
            prompt_tokens: number | null;
            completion_tokens: number | null;
            total_tokens: number | null;
            prompt_cost: number | null;
            completion_cost: number | null;
            total_cost: number | null;
            /** @description What ingestion fixed up or dropped */
            problems: string[];
            /** @description On root runs in lists: the totals of their trace */
            trace?: components["schemas"]["TraceTotals"] | null;
        };
        RunUrl: {
            url: string;
        };
        ServerInfo: {
            /** @description The LangSmith API version answered (the SDK checks it) */
            version: string;
            berth_version: string;
            license_expiration_time: null;
            tenant_handle: null;
            batch_ingest_config: {
                use_multipart_endpoint: boolean;
                scale_up_qsize_trigger: number;
                scale_up_nthreads_limit: number;
                scale_down_nempty_trigger: number;
                size_limit: number;
                size_limit_bytes: number;
            };
            instance_flags: {
                [key: string]: boolean;
            };
            customer_info: {
                customer_id: string;
                customer_name: string;
            };
        };
        ShareTokenV2: {
            /** Format: uuid */
            share_token: string;
        };
        StatsBucket: {
            run_count: number;
            trace_count: number;
            /** @description Traces whose root run failed */
            error_count: number;
            /** @description error_count / trace_count; null without traces */
            error_rate: number | null;
            llm_count: number;
            input_tokens: number;
            output_tokens: number;
            total_tokens: number;
            /** @description US dollars */
            total_cost: number;
            latency_p50: number | null;
            latency_p99: number | null;
            /** @description Time to first token, ms */
            first_token_p50: number | null;
            first_token_p99: number | null;
            /**
             * Format: date-time
             * @description Start of the bucket (UTC)
             */
            start: string;
        };
        StatsOverTime: {
            /** @enum {string} */
            bucket: "hour" | "day";
            /** Format: date-time */
            start_time: string;
            /** Format: date-time */
            end_time: string;
            totals: components["schemas"]["StatsTotals"];
            /** @description Every bucket of the range, empty ones included */
            buckets: components["schemas"]["StatsBucket"][];
            /** @description LLM usage per model, most expensive first */
            by_model: components["schemas"]["ModelUsage"][];
        };
        StatsTotals: {
            run_count: number;
            trace_count: number;
            /** @description Traces whose root run failed */
            error_count: number;
            /** @description error_count / trace_count; null without traces */
            error_rate: number | null;
            llm_count: number;
            input_tokens: number;
            output_tokens: number;
            total_tokens: number;
            /** @description US dollars */
            total_cost: number;
            latency_p50: number | null;
            latency_p99: number | null;
            /** @description Time to first token, ms */
            first_token_p50: number | null;
            first_token_p99: number | null;
        };
        ThreadList: {
            threads: components["schemas"]["ThreadSummary"][];
            offset: number;
        };
        ThreadSummary: {
            thread_id: string;
            /**
             * Format: uuid
             * @description The trace of the first turn
             */
            first_trace_id: string;
            /**
             * Format: uuid
             * @description The trace of the latest turn
             */
            last_trace_id: string;
            turn_count: number;
            error_count: number;
            llm_count: number;
            first_start_time: string | null;
            last_start_time: string | null;
            total_tokens: number;
            total_cost: number | null;
        };
        ThreadTurn: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            trace_id: string;
            parent_run_id: string | null;
            dotted_order: string | null;
            /** Format: uuid */
            project_id: string;
            /**
             * Format: uuid
             * @description The project id (LangSmith's name for it)
             */
            session_id: string;
            name: string;
            run_type: string;
            /** @enum {string} */
            status: "pending" | "success" | "error";
            start_time: string | null;
            end_time: string | null;
            latency_ms: number | null;
            error: string | null;
            tags: string[];
            metadata: {
                [key: string]: unknown;
            };
            thread_id: string | null;
            model: string | null;
            provider: string | null;
            usage: components["schemas"]["TokenUsage"] | null;
            cost: components["schemas"]["RunCost"] | null;
            /** @description Why the run has no cost */
            cost_reason: string | null;
            first_token_time: string | null;
            ttft_ms: number | null;
            prompt_tokens: number | null;
            completion_tokens: number | null;
            total_tokens: number | null;
            prompt_cost: number | null;
            completion_cost: number | null;
            total_cost: number | null;
            /** @description What ingestion fixed up or dropped */
            problems: string[];
            inputs: {
                [key: string]: unknown;
            } | null;
            outputs: {
                [key: string]: unknown;
            } | null;
            extra: {
                [key: string]: unknown;
            } | null;
            events: {
                [key: string]: unknown;
            }[];
            serialized: {
                [key: string]: unknown;
            } | null;
            reference_example_id: string | null;
            attachments: components["schemas"]["Attachment"][];
            /** @description LLM runs only: the messages in the native format */
            messages: components["schemas"]["RenderedMessages"] | null;
            /** @description GET /runs/{id}: the run's page in the console (relative to its origin) */
            app_path?: string;
            /** @description GET /runs/{id}: ancestors, root first */
            parent_run_ids?: string[];
            /** @description GET /runs/{id}: direct children in execution order */
            child_run_ids?: string[];
            /** @description GET /runs/{id}: feedback on the run per key */
            feedback_stats?: components["schemas"]["FeedbackStats"];
            trace: components["schemas"]["TraceTotals"] | null;
        };
        ThreadTurns: {
            thread_id: string;
            /** @description Oldest first */
            turns: components["schemas"]["ThreadTurn"][];
        };
        TokenUsage: {
            input_tokens: number;
            output_tokens: number;
            total_tokens: number;
            input_token_details: {
                [key: string]: number;
            };
            output_token_details: {
                [key: string]: number;
            };
            /** @description Counted by Berth because the run reported no usage */
            estimated: boolean;
        };
        TraceNode: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            trace_id: string;
            parent_run_id: string | null;
            dotted_order: string | null;
            /** Format: uuid */
            project_id: string;
            /**
             * Format: uuid
             * @description The project id (LangSmith's name for it)
             */
            session_id: string;
            name: string;
            run_type: string;
            /** @enum {string} */
            status: "pending" | "success" | "error";
            start_time: string | null;
            end_time: string | null;
            latency_ms: number | null;
            error: string | null;
            tags: string[];
            metadata: {
                [key: string]: unknown;
            };
            thread_id: string | null;
            model: string | null;
            provider: string | null;
            usage: components["schemas"]["TokenUsage"] | null;
            cost: components["schemas"]["RunCost"] | null;
            /** @description Why the run has no cost */
            cost_reason: string | null;
            first_token_time: string | null;
            ttft_ms: number | null;
            prompt_tokens: number | null;
            completion_tokens: number | null;
            total_tokens: number | null;
            prompt_cost: number | null;
            completion_cost: number | null;
            total_cost: number | null;
            /** @description What ingestion fixed up or dropped */
            problems: string[];
            /** @description On root runs in lists: the totals of their trace */
            trace?: components["schemas"]["TraceTotals"] | null;
            children: components["schemas"]["TraceNode"][];
        };
        TraceTotals: {
            run_count: number;
            llm_count: number;
            input_tokens: number;
            output_tokens: number;
            total_tokens: number;
            total_cost: number | null;
            first_token_time: string | null;
            /** @description The trace's first LLM token − the root's start */
            ttft_ms: number | null;
            models: string[];
        };
        TraceTree: {
            /** Format: uuid */
            trace_id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            root_run_id: string;
            totals: components["schemas"]["TraceTotals"] | null;
            /** @description The root, then any run whose parent has not arrived */
            runs: components["schemas"]["TraceNode"][];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getInfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServerInfo"];
                };
            };
        };
    };
    getOk: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    getPublicShareTokenRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                share_token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getPublicShareTokenTrace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                share_token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        trace_id: string;
                        /** Format: uuid */
                        project_id: string;
                        /** Format: uuid */
                        root_run_id: string;
                        totals: components["schemas"]["TraceTotals"] | null;
                        /** @description The root, then any run whose parent has not arrived */
                        runs: components["schemas"]["TraceNode"][];
                        /** Format: uuid */
                        shared_run_id: string;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getPublicShareTokenRuns: {
        parameters: {
            query?: {
                id?: string | string[];
            };
            header?: never;
            path: {
                share_token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": ({
                        /** Format: uuid */
                        id: string;
                    } & {
                        [key: string]: unknown;
                    })[];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getPublicShareTokenRunsRunId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                share_token: string;
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postApiV2PublicShareTokenRunsQuery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                share_token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    selects?: ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID")[];
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            [key: string]: unknown;
                        }[];
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getApiV2PublicShareTokenRunRunId: {
        parameters: {
            query?: {
                selects?: ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID") | ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID")[];
                start_time?: string;
            };
            header?: never;
            path: {
                share_token: string;
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getPublicExampleAttachmentsSha256: {
        parameters: {
            query: {
                tenant: string;
                type: string;
                expires: number;
                signature: string;
            };
            header?: never;
            path: {
                sha: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": unknown;
                };
            };
            /** @description Signature invalid or link expired */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such file */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postRunsMultipart: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted (per-run problems listed) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No usable run */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Busy: retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    postRunsBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted (per-run problems listed) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No usable run */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Busy: retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    getRuns: {
        parameters: {
            query?: {
                project_id?: string;
                project_name?: string;
                trace_id?: string;
                parent_run_id?: string;
                is_root?: "true" | "false";
                run_type?: "llm" | "chain" | "tool" | "retriever" | "embedding" | "prompt" | "parser";
                status?: "pending" | "success" | "error";
                name?: string;
                name_contains?: string;
                model?: string;
                trace_model?: string;
                min_latency_ms?: number;
                max_latency_ms?: number;
                thread_id?: string;
                start_time_gte?: string;
                start_time_lte?: string;
                metadata?: {
                    [key: string]: string;
                };
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunList"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postRuns: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted (per-run problems listed) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No usable run */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Busy: retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    getRunsRunId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchRunsRunId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted (per-run problems listed) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No usable run */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Busy: retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    postOtelV1Traces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ExportTraceServiceResponse (partial_success lists refused spans) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Undecodable body (google.rpc.Status) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not protobuf or JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    postV1PlatformDatasetsDatasetIdExamples: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExamplesWritten"];
                };
            };
            /** @description No such dataset or source run */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description An id is taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Too large (the request, or a file above the per-attachment limit) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not multipart */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchV1PlatformDatasetsDatasetIdExamples: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExamplesWritten"];
                };
            };
            /** @description No such dataset or example */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not multipart */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postDatasetsUpload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Dataset"];
                };
            };
            /** @description Bad CSV or form */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Name taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Not multipart */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    getProjects: {
        parameters: {
            query?: {
                name_contains?: string;
                name?: string;
                limit?: number;
                offset?: number;
                stats_start_time?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectList"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postProjects: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProjectCreateRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            /** @description Name taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getProjectsProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteProjectsProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getProjectsProjectIdStats: {
        parameters: {
            query?: {
                start_time?: string;
                end_time?: string;
                bucket?: "hour" | "day";
            };
            header?: never;
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatsOverTime"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getProjectsProjectIdThreads: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadList"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getProjectsProjectIdThreadsThreadId: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                project_id: string;
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadTurns"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getRunsRunIdAttachmentsName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": unknown;
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getTracesTraceId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                trace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TraceTree"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getModelPrices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelPriceList"];
                };
            };
        };
    };
    postModelPrices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ModelPriceCreateRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelPrice"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteModelPricesPriceId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                price_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchModelPricesPriceId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                price_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ModelPriceUpdateRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelPrice"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getSessions: {
        parameters: {
            query?: {
                id?: string | string[];
                name?: string | string[];
                name_contains?: string | string[];
                reference_dataset?: string | string[];
                reference_free?: boolean | ("true" | "false");
                metadata?: string | string[];
                include_stats?: boolean | ("true" | "false");
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithSession"][];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postSessions: {
        parameters: {
            query?: {
                upsert?: boolean | ("true" | "false");
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id?: string | null;
                    name: string;
                    description?: string | null;
                    extra?: {
                        [key: string]: unknown;
                    } | null;
                    start_time?: string | null;
                    end_time?: string | null;
                    reference_dataset_id?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithSession"];
                };
            };
            /** @description Name taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getSessionsSessionId: {
        parameters: {
            query?: {
                include_stats?: boolean | ("true" | "false");
            };
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithSession"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteSessionsSessionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchSessionsSessionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string | null;
                    description?: string | null;
                    extra?: {
                        [key: string]: unknown;
                    } | null;
                    end_time?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithSession"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postRunsQuery: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id?: string[] | null;
                    trace?: string | null;
                    parent_run?: string | null;
                    run_type?: ("llm" | "chain" | "tool" | "retriever" | "embedding" | "prompt" | "parser") | null;
                    session?: string[] | null;
                    reference_example?: string[] | null;
                    start_time?: string | null;
                    end_time?: string | null;
                    error?: boolean | null;
                    query?: string | null;
                    filter?: string | null;
                    trace_filter?: string | null;
                    tree_filter?: string | null;
                    is_root?: boolean | null;
                    execution_order?: number | null;
                    limit?: number | null;
                    cursor?: string | null;
                    select?: string[] | null;
                    order?: ("asc" | "desc") | null;
                };
            };
        };
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithRunsPage"];
                };
            };
            /** @description Bad filter expression or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postRunsStats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id?: string[] | null;
                    trace?: string | null;
                    parent_run?: string | null;
                    run_type?: ("llm" | "chain" | "tool" | "retriever" | "embedding" | "prompt" | "parser") | null;
                    session?: string[] | null;
                    reference_example?: string[] | null;
                    start_time?: string | null;
                    end_time?: string | null;
                    error?: boolean | null;
                    query?: string | null;
                    filter?: string | null;
                    trace_filter?: string | null;
                    tree_filter?: string | null;
                    is_root?: boolean | null;
                    execution_order?: number | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithRunStats"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getRunsRunIdShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunShare"] | null;
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    putRunsRunIdShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    run_id?: string | null;
                    share_token?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunShare"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteRunsRunIdShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unshared */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postApiV2RunsQuery: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    project_ids?: string[];
                    ids?: string[];
                    /** Format: uuid */
                    trace_id?: string;
                    /** @enum {string} */
                    run_type?: "TOOL" | "CHAIN" | "LLM" | "RETRIEVER" | "EMBEDDING" | "PROMPT" | "PARSER";
                    is_root?: boolean;
                    has_error?: boolean;
                    reference_examples?: string[];
                    min_start_time?: string;
                    max_start_time?: string;
                    filter?: string;
                    trace_filter?: string;
                    tree_filter?: string;
                    selects?: ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID")[];
                    cursor?: string;
                    /** @default 100 */
                    page_size?: number;
                    ai_search?: string;
                };
            };
        };
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithRunsPageV2"];
                };
            };
            /** @description Bad filter expression or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description ai_search */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    getApiV2RunsRunId: {
        parameters: {
            query: {
                project_id: string;
                selects?: ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID") | ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID")[];
                start_time?: string;
            };
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithRunV2"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getApiV2RunsRunIdUrl: {
        parameters: {
            query: {
                project_id: string;
                trace_id: string;
                start_time?: string;
            };
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunUrl"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postApiV2RunsRunIdShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    session_id: string;
                    /** Format: uuid */
                    trace_id: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShareTokenV2"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteApiV2RunsTraceIdShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                trace_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    session_id?: string;
                };
            };
        };
        responses: {
            /** @description Not shared (any more) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postApiV2TracesQuery: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    project_id?: string;
                    trace_ids?: string[];
                    min_start_time?: string;
                    max_start_time?: string;
                    trace_filter?: string;
                    tree_filter?: string;
                    selects?: ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID")[];
                    cursor?: string;
                    /** @default 100 */
                    page_size?: number;
                    ai_search?: string;
                };
            };
        };
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithTracesPageV2"];
                };
            };
            /** @description Bad filter expression or cursor; no project_id or trace_ids */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description ai_search */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    getApiV2TracesTraceIdRuns: {
        parameters: {
            query: {
                project_id: string;
                filter?: string;
                min_start_time?: string;
                max_start_time?: string;
                selects?: ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID") | ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID")[];
            };
            header?: never;
            path: {
                trace_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithTraceRunsV2"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postApiV2ThreadsQuery: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    project_id: string;
                    min_start_time?: string;
                    max_start_time?: string;
                    filter?: string;
                    thread_filter?: string;
                    trace_filter?: string;
                    tree_filter?: string;
                    cursor?: string;
                    /** @default 100 */
                    page_size?: number;
                    ai_search?: string;
                };
            };
        };
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithThreadsPageV2"];
                };
            };
            /** @description A filter (not supported on threads) or a bad cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description ai_search */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
        };
    };
    getApiV2ThreadsThreadIdTraces: {
        parameters: {
            query: {
                project_id: string;
                filter?: string;
                trace_filter?: string;
                tree_filter?: string;
                cursor?: string;
                page_size?: number;
            };
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithThreadTracesPageV2"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getApiV2ThreadsThreadIdStats: {
        parameters: {
            query: {
                session_id: string;
                selects?: string | string[];
                filter?: string;
            };
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithThreadStatsV2"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getApiV2Sessions: {
        parameters: {
            query?: {
                id?: string | string[];
                name?: string;
                name_contains?: string;
                reference_dataset_id?: string | string[];
                metadata?: string | string[];
                filter?: string;
                include_stats?: boolean | ("true" | "false");
                cursor?: string;
                page_size?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LangSmithSessionsPageV2"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getFeedback: {
        parameters: {
            query?: {
                run?: string | string[];
                key?: string | string[];
                source?: string | string[];
                session?: string | string[];
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Feedback"][];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postFeedback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id?: string | null;
                    run_id?: string | null;
                    trace_id?: string | null;
                    session_id?: string | null;
                    key: string;
                    score?: number | boolean | null;
                    value?: unknown;
                    comment?: string | null;
                    correction?: unknown;
                    feedback_source?: {
                        type?: string | null;
                        metadata?: {
                            [key: string]: unknown;
                        } | null;
                    } | null;
                    comparative_experiment_id?: string | null;
                    feedback_group_id?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Feedback"];
                };
            };
            /** @description No such run */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Id taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getFeedbackFeedbackId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                feedback_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Feedback"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteFeedbackFeedbackId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                feedback_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchFeedbackFeedbackId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                feedback_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    score?: number | boolean | null;
                    value?: unknown;
                    comment?: string | null;
                    correction?: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Feedback"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasets: {
        parameters: {
            query?: {
                id?: string | string[];
                name?: string | string[];
                name_contains?: string | string[];
                data_type?: string | string[];
                metadata?: string | string[];
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Dataset"][];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postDatasets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id?: string | null;
                    name: string;
                    description?: string | null;
                    data_type?: ("kv" | "llm" | "chat") | null;
                    inputs_schema_definition?: {
                        [key: string]: unknown;
                    } | null;
                    outputs_schema_definition?: {
                        [key: string]: unknown;
                    } | null;
                    extra?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Dataset"];
                };
            };
            /** @description Name or id taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasetsDatasetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Dataset"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteDatasetsDatasetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchDatasetsDatasetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string | null;
                    description?: string | null;
                    metadata?: {
                        [key: string]: unknown;
                    } | null;
                    inputs_schema_definition?: {
                        [key: string]: unknown;
                    } | null;
                    outputs_schema_definition?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Updated */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Dataset"];
                };
            };
            /** @description Name taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasetsDatasetIdVersion: {
        parameters: {
            query?: {
                as_of?: string | string[];
                tag?: string | string[];
            };
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetVersion"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasetsDatasetIdVersions: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetVersion"][];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasetsDatasetIdVersionsDiff: {
        parameters: {
            query: {
                from_version: string | string[];
                to_version: string | string[];
            };
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetDiff"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    putDatasetsDatasetIdTags: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    as_of: string;
                    tag: string;
                };
            };
        };
        responses: {
            /** @description Tagged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetVersion"];
                };
            };
            /** @description No such dataset or version */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasetsDatasetIdSplits: {
        parameters: {
            query?: {
                as_of?: string | string[];
            };
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string[];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    putDatasetsDatasetIdSplits: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    split_name: string;
                    examples: string[];
                    remove?: boolean | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExamplesWritten"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchV1PlatformDatasetsDatasetIdExamplesMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    example_ids: string[];
                    operations: ({
                        key: string;
                        operation: string;
                        value: unknown;
                    } | {
                        key: string;
                        operation: string;
                        values: (string | number | boolean)[];
                    })[];
                };
            };
        };
        responses: {
            /** @description One status per example asked for, in request order: UPDATED or NOT_FOUND */
            207: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExampleMetadataStatuses"];
                };
            };
            /** @description Dataset not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasetsDatasetIdExperiments: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetExperiments"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getApiV2Datasets: {
        parameters: {
            query?: {
                id?: string | string[];
                data_type?: ("kv" | "llm" | "chat") | ("kv" | "llm" | "chat")[];
                name?: string | string[];
                name_contains?: string | string[];
                metadata?: string | string[];
                sort_by?: ("name" | "created_at" | "last_session_start_time" | "example_count" | "session_count" | "modified_at") | ("name" | "created_at" | "last_session_start_time" | "example_count" | "session_count" | "modified_at")[];
                sort_order?: ("asc" | "desc") | ("asc" | "desc")[];
                exclude?: "example_count" | "example_count"[];
                exclude_corrections_datasets?: boolean | ("true" | "false");
                tag_value_id?: string | string[];
                cursor?: string | string[];
                page_size?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetsPageV2"];
                };
            };
            /** @description tag_value_id (Berth has no resource tags) or a bad cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postApiV2DatasetsDatasetIdExperimentRuns: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    experiment_ids: string[];
                    example_ids?: string[];
                    filters?: {
                        [key: string]: string[];
                    };
                    selects?: ("ID" | "NAME" | "RUN_TYPE" | "STATUS" | "START_TIME" | "END_TIME" | "LATENCY_SECONDS" | "FIRST_TOKEN_TIME" | "ERROR" | "ERROR_PREVIEW" | "EXTRA" | "METADATA" | "EVENTS" | "INPUTS" | "INPUTS_PREVIEW" | "OUTPUTS" | "OUTPUTS_PREVIEW" | "MANIFEST" | "PARENT_RUN_ID" | "PARENT_RUN_IDS" | "PROJECT_ID" | "TRACE_ID" | "THREAD_ID" | "DOTTED_ORDER" | "IS_ROOT" | "REFERENCE_EXAMPLE_ID" | "REFERENCE_DATASET_ID" | "TOTAL_TOKENS" | "PROMPT_TOKENS" | "COMPLETION_TOKENS" | "TOTAL_COST" | "PROMPT_COST" | "COMPLETION_COST" | "PROMPT_TOKEN_DETAILS" | "COMPLETION_TOKEN_DETAILS" | "PROMPT_COST_DETAILS" | "COMPLETION_COST_DETAILS" | "PRICE_MODEL_ID" | "TAGS" | "APP_PATH" | "ATTACHMENTS" | "THREAD_EVALUATION_TIME" | "IS_IN_DATASET" | "LAST_QUEUED_AT" | "SHARE_URL" | "FEEDBACK_STATS" | "LS_USER_ID")[];
                    sort?: {
                        by: string;
                        order?: string;
                    };
                    /** Format: uuid */
                    comparative_experiment_id?: string;
                    cursor?: string;
                    /** @default 100 */
                    page_size?: number;
                };
            };
        };
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExperimentRunsPage"];
                };
            };
            /** @description An experiment of another dataset, a filter for one not asked for, sort over several experiments, a bad expression or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such dataset, experiment or comparison */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postDatasetsComparative: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id?: string | null;
                    name: string;
                    description?: string | null;
                    experiment_ids: string[];
                    /** Format: uuid */
                    reference_dataset_id: string;
                    created_at?: string | null;
                    extra?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComparativeExperiment"];
                };
            };
            /** @description Experiments of another dataset */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description No such dataset or experiment */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Id taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasetsDatasetIdComparative: {
        parameters: {
            query?: {
                id?: string | string[];
                name?: string | string[];
                name_contains?: string | string[];
                sort_by?: ("created_at" | "name") | ("created_at" | "name")[];
                sort_by_desc?: boolean | ("true" | "false");
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComparativeExperiment"][];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteDatasetsComparativeComparativeExperimentId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                comparative_experiment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getExamples: {
        parameters: {
            query: {
                dataset: string | string[];
                as_of?: string | string[];
                id?: string | string[];
                splits?: string | string[];
                metadata?: string | string[];
                filter?: string | string[];
                limit?: number;
                offset?: number;
                select?: string | string[];
                inline_s3_urls?: boolean | ("true" | "false");
                exclude_default_fields?: boolean | ("true" | "false");
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Example"][];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postExamples: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id?: string | null;
                    /** Format: uuid */
                    dataset_id: string;
                    inputs: {
                        [key: string]: unknown;
                    };
                    outputs?: {
                        [key: string]: unknown;
                    } | null;
                    metadata?: {
                        [key: string]: unknown;
                    } | null;
                    split?: (string | string[]) | null;
                    source_run_id?: string | null;
                    created_at?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Example"];
                };
            };
            /** @description No such dataset */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Id taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteExamples: {
        parameters: {
            query: {
                example_ids: string | string[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An example was not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postExamplesBulk: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id?: string | null;
                    /** Format: uuid */
                    dataset_id: string;
                    inputs: {
                        [key: string]: unknown;
                    };
                    outputs?: {
                        [key: string]: unknown;
                    } | null;
                    metadata?: {
                        [key: string]: unknown;
                    } | null;
                    split?: (string | string[]) | null;
                    source_run_id?: string | null;
                    created_at?: string | null;
                }[];
            };
        };
        responses: {
            /** @description Created */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Example"][];
                };
            };
            /** @description No such dataset */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description An id is taken */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchExamplesBulk: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    dataset_id?: string | null;
                    inputs?: {
                        [key: string]: unknown;
                    } | null;
                    outputs?: {
                        [key: string]: unknown;
                    } | null;
                    metadata?: {
                        [key: string]: unknown;
                    } | null;
                    split?: (string | string[]) | null;
                    /** Format: uuid */
                    id: string;
                }[];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExamplesWritten"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    postV1PlatformDatasetsExamplesDelete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    example_ids: string[];
                    hard_delete?: boolean | null;
                };
            };
        };
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An example was not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteV1PlatformDatasetsDatasetIdExamplesExampleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
                example_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted (or already deleted) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No such dataset, or the dataset never had the example */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getExamplesExampleId: {
        parameters: {
            query?: {
                as_of?: string | string[];
            };
            header?: never;
            path: {
                example_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Example"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteExamplesExampleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                example_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    patchExamplesExampleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                example_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    dataset_id?: string | null;
                    inputs?: {
                        [key: string]: unknown;
                    } | null;
                    outputs?: {
                        [key: string]: unknown;
                    } | null;
                    metadata?: {
                        [key: string]: unknown;
                    } | null;
                    split?: (string | string[]) | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Example"];
                };
            };
            /** @description Validation error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
}
