/**
 * What the tracing API answers, as zod schemas: they document each route's 2xx JSON body in the
 * OpenAPI document (the console's types are generated from it) and, while tests run, every answer
 * is checked against them (src/shared/http.ts). Schemas with an `id` become named components.
 *
 * The shapes are those of the presenters (../query/present.ts, ../query/stats.ts, the query
 * service). Objects are closed (an undocumented key fails the check) except where the server
 * passes a client's data through: run payloads, metadata, extras and provider-specific details.
 */
import { z } from "zod";
import { priceCreateBody, priceUpdateBody, projectCreateBody } from "./schemas.js";

const uuid = z.guid();
const timestamp = z.iso.datetime({ offset: true });
/** Data a client sent, passed through as received. */
const clientObject = z.record(z.string(), z.unknown());
const counts = z.record(z.string(), z.number());

export const Health = z.object({ ok: z.literal(true) }).meta({ id: "Health" });

/** `GET /info`: what the LangSmith SDKs read to configure their batching. */
export const ServerInfo = z
  .object({
    version: z.string().describe("The LangSmith API version answered (the SDK checks it)"),
    berth_version: z.string(),
    license_expiration_time: z.null(),
    tenant_handle: z.null(),
    batch_ingest_config: z.object({
      use_multipart_endpoint: z.boolean(),
      scale_up_qsize_trigger: z.number(),
      scale_up_nthreads_limit: z.number(),
      scale_down_nempty_trigger: z.number(),
      size_limit: z.number(),
      size_limit_bytes: z.number(),
    }),
    instance_flags: z.record(z.string(), z.boolean()),
    customer_info: z.object({ customer_id: z.string(), customer_name: z.string() }),
  })
  .meta({ id: "ServerInfo" });

export const IngestResult = z
  .object({
    accepted: z.number().int().describe("Runs stored"),
    errors: z.array(z.object({ run_id: z.string().optional(), error: z.string() })).describe("Runs refused, with why"),
    warnings: z.array(z.object({ run_id: z.string(), problems: z.array(z.string()) })).describe("Runs stored with something fixed up or dropped"),
  })
  .meta({ id: "IngestResult" });

// ---------- stats ----------

/** Totals of a set of runs (stats.ts `Totals`); percentiles in milliseconds, null without data. */
export const StatsTotals = z
  .object({
    run_count: z.number().int(),
    trace_count: z.number().int(),
    error_count: z.number().int().describe("Traces whose root run failed"),
    error_rate: z.number().nullable().describe("error_count / trace_count; null without traces"),
    llm_count: z.number().int(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    total_tokens: z.number(),
    total_cost: z.number().describe("US dollars"),
    latency_p50: z.number().nullable(),
    latency_p99: z.number().nullable(),
    first_token_p50: z.number().nullable().describe("Time to first token, ms"),
    first_token_p99: z.number().nullable(),
  })
  .meta({ id: "StatsTotals" });

/** Per feedback key: how many, the mean score, and how often each value was given. */
export const FeedbackStats = z
  .record(z.string(), z.object({ n: z.number().int(), avg: z.number().nullable(), values: z.record(z.string(), z.number()) }))
  .meta({ id: "FeedbackStats" });

export const ProjectStats = StatsTotals.extend({ last_run_start_time: timestamp.nullable(), feedback_stats: FeedbackStats.optional() }).meta({ id: "ProjectStats" });

export const StatsBucket = StatsTotals.extend({ start: timestamp.describe("Start of the bucket (UTC)") }).meta({ id: "StatsBucket" });

export const ModelUsage = z
  .object({
    model: z.string().nullable(),
    llm_count: z.number().int(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    total_tokens: z.number(),
    total_cost: z.number(),
    first_token_p50: z.number().nullable(),
  })
  .meta({ id: "ModelUsage" });

export const StatsOverTime = z
  .object({
    bucket: z.enum(["hour", "day"]),
    start_time: timestamp,
    end_time: timestamp,
    totals: StatsTotals,
    buckets: z.array(StatsBucket).describe("Every bucket of the range, empty ones included"),
    by_model: z.array(ModelUsage).describe("LLM usage per model, most expensive first"),
  })
  .meta({ id: "StatsOverTime" });

// ---------- projects ----------

export const ProjectCreateRequest = projectCreateBody.meta({ id: "ProjectCreateRequest" });

export const Project = z
  .object({
    id: uuid,
    tenant_id: uuid,
    name: z.string(),
    description: z.string().nullable(),
    metadata: clientObject,
    extra: clientObject,
    end_time: timestamp.nullable(),
    reference_dataset_id: uuid.nullable().describe("Experiments: the dataset they ran on"),
    created_at: timestamp,
    stats: ProjectStats.optional().describe("Absent in the answer to a create"),
  })
  .meta({ id: "Project" });
export const ProjectList = z.object({ projects: z.array(Project), offset: z.number().int() }).meta({ id: "ProjectList" });

// ---------- runs ----------

export const TokenUsage = z
  .object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    total_tokens: z.number(),
    input_token_details: counts,
    output_token_details: counts,
    estimated: z.boolean().describe("Counted by Berth because the run reported no usage"),
  })
  .meta({ id: "TokenUsage" });

export const RunCost = z
  .object({
    input_cost: z.number().nullable(),
    output_cost: z.number().nullable(),
    total_cost: z.number(),
    input_cost_details: counts,
    output_cost_details: counts,
    source: z.enum(["client", "price"]).nullable().describe("Sent by the client, or computed from the price table"),
    price_id: z.string().nullable(),
  })
  .meta({ id: "RunCost" });

/** A trace's totals (LLM runs only), shown with its root run. */
export const TraceTotals = z
  .object({
    run_count: z.number().int(),
    llm_count: z.number().int(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    total_tokens: z.number(),
    total_cost: z.number().nullable(),
    first_token_time: timestamp.nullable(),
    ttft_ms: z.number().nullable().describe("The trace's first LLM token − the root's start"),
    models: z.array(z.string()),
  })
  .meta({ id: "TraceTotals" });

/** present.ts `presentRun`: a run without its payloads. */
const runFields = z.object({
  id: uuid,
  trace_id: uuid,
  parent_run_id: uuid.nullable(),
  dotted_order: z.string().nullable(),
  project_id: uuid,
  session_id: uuid.describe("The project id (LangSmith's name for it)"),
  name: z.string(),
  run_type: z.string(),
  status: z.enum(["pending", "success", "error"]),
  start_time: timestamp.nullable(),
  end_time: timestamp.nullable(),
  latency_ms: z.number().nullable(),
  error: z.string().nullable(),
  tags: z.array(z.string()),
  metadata: clientObject,
  thread_id: z.string().nullable(),
  model: z.string().nullable(),
  provider: z.string().nullable(),
  usage: TokenUsage.nullable(),
  cost: RunCost.nullable(),
  cost_reason: z.string().nullable().describe("Why the run has no cost"),
  first_token_time: timestamp.nullable(),
  ttft_ms: z.number().nullable(),
  prompt_tokens: z.number().nullable(),
  completion_tokens: z.number().nullable(),
  total_tokens: z.number().nullable(),
  prompt_cost: z.number().nullable(),
  completion_cost: z.number().nullable(),
  total_cost: z.number().nullable(),
  problems: z.array(z.string()).describe("What ingestion fixed up or dropped"),
});

export const RunSummary = runFields
  .extend({ trace: TraceTotals.nullable().optional().describe("On root runs in lists: the totals of their trace") })
  .meta({ id: "RunSummary" });
export const RunList = z.object({ runs: z.array(RunSummary), next_cursor: z.string().nullable() }).meta({ id: "RunList" });

export const TraceNode: z.ZodType<z.output<typeof RunSummary> & { children: TraceNodeType[] }> = RunSummary.extend({
  get children() {
    return z.array(TraceNode);
  },
}).meta({ id: "TraceNode" });
interface TraceNodeType extends z.output<typeof RunSummary> {
  children: TraceNodeType[];
}

export const TraceTree = z
  .object({
    trace_id: uuid,
    project_id: uuid,
    root_run_id: uuid,
    totals: TraceTotals.nullable(),
    runs: z.array(TraceNode).describe("The root, then any run whose parent has not arrived"),
  })
  .meta({ id: "TraceTree" });

// ---------- messages (../messages/native.ts) ----------

const extras = clientObject.optional();

export const NativeBlock = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string(), annotations: z.array(z.unknown()).optional(), extras }),
    z.object({ type: z.literal("reasoning"), text: z.string(), extras }),
    z.object({
      type: z.enum(["image", "file", "audio", "video"]),
      url: z.string().optional(),
      base64: z.string().optional(),
      id: z.string().optional(),
      mime_type: z.string().optional(),
      extras,
    }),
    z.object({ type: z.literal("tool_call"), id: z.string().optional(), name: z.string(), args: clientObject }),
    z.object({ type: z.literal("server_tool_call"), id: z.string(), name: z.string(), args: clientObject, extras }),
    z.object({ type: z.literal("server_tool_result"), tool_call_id: z.string(), id: z.string().optional(), status: z.enum(["success", "error"]), output: z.unknown().optional() }),
    z.object({ type: z.literal("invalid_tool_call"), id: z.string().optional(), name: z.string().optional(), args: z.string().describe("As sent"), error: z.string() }),
    z.object({ type: z.literal("non_standard"), value: z.unknown() }),
  ])
  .meta({ id: "NativeBlock" });

export const NativeMessage = z
  .object({
    role: z.enum(["system", "reasoning", "user", "assistant", "tool"]),
    content: z.array(NativeBlock),
    tool_call_id: z.string().optional(),
    status: z.literal("error").optional().describe("Only on tool messages whose tool reported a failure"),
    usage_metadata: clientObject.optional(),
  })
  .meta({ id: "NativeMessage" });

export const RenderedMessages = z
  .object({
    rendered: z.boolean(),
    format: z.enum(["native", "openai", "anthropic", "langchain"]).optional().describe("The format the messages were read from"),
    messages: z.array(NativeMessage).optional(),
    warnings: z.array(z.string()).optional(),
    reason: z.string().optional().describe("Why the run is shown raw"),
  })
  .meta({ id: "RenderedMessages" });

export const Attachment = z
  .object({ name: z.string(), content_type: z.string(), size: z.number().int(), url: z.string().describe("Where to fetch it (same origin, with the API key)") })
  .meta({ id: "Attachment" });

/** present.ts `presentRunDetail`: a run with its payloads and, for LLM runs, its messages. */
export const RunDetail = runFields
  .extend({
    inputs: clientObject.nullable(),
    outputs: clientObject.nullable(),
    extra: clientObject.nullable(),
    events: z.array(clientObject),
    serialized: clientObject.nullable(),
    reference_example_id: uuid.nullable(),
    attachments: z.array(Attachment),
    messages: RenderedMessages.nullable().describe("LLM runs only: the messages in the native format"),
    // GET /runs/{id} only: what the LangSmith SDK reads
    app_path: z.string().optional().describe("GET /runs/{id}: the run's page in the console (relative to its origin)"),
    parent_run_ids: z.array(uuid).optional().describe("GET /runs/{id}: ancestors, root first"),
    child_run_ids: z.array(uuid).optional().describe("GET /runs/{id}: direct children in execution order"),
    feedback_stats: FeedbackStats.optional().describe("GET /runs/{id}: feedback on the run per key"),
    trace: TraceTotals.nullable().optional().describe("GET /runs/{id} of a root run: the totals of its trace"),
  })
  .meta({ id: "RunDetail" });



// ---------- threads ----------

export const ThreadSummary = z
  .object({
    thread_id: z.string(),
    first_trace_id: z.guid().describe("The trace of the first turn"),
    last_trace_id: z.guid().describe("The trace of the latest turn"),
    turn_count: z.number().int(),
    error_count: z.number().int(),
    llm_count: z.number().int(),
    first_start_time: timestamp.nullable(),
    last_start_time: timestamp.nullable(),
    total_tokens: z.number(),
    total_cost: z.number().nullable(),
  })
  .meta({ id: "ThreadSummary" });
export const ThreadList = z.object({ threads: z.array(ThreadSummary), offset: z.number().int() }).meta({ id: "ThreadList" });

export const ThreadTurn = RunDetail.extend({ trace: TraceTotals.nullable() }).meta({ id: "ThreadTurn" });
export const ThreadTurns = z.object({ thread_id: z.string(), turns: z.array(ThreadTurn).describe("Oldest first") }).meta({ id: "ThreadTurns" });

// ---------- model prices ----------

export const ModelPriceCreateRequest = priceCreateBody.meta({ id: "ModelPriceCreateRequest" });
export const ModelPriceUpdateRequest = priceUpdateBody.meta({ id: "ModelPriceUpdateRequest" });

export const ModelPrice = z
  .object({
    id: z.string().describe("A UUID, or `default:<provider>:<model>` for a default"),
    model_name: z.string(),
    match_pattern: z.string().describe("Regular expression on the model name (case-insensitive)"),
    provider: z.string().nullable().optional(),
    // the defaults carry a date (2026-03-13), the tenant's entries a timestamp
    effective_from: z.union([z.iso.date(), timestamp]).nullable().optional().describe("From when the price applies (ISO 8601 date or timestamp); none: always"),
    input_per_million: z.number(),
    output_per_million: z.number(),
    input_details_per_million: counts.optional(),
    output_details_per_million: counts.optional(),
    source: z.enum(["default", "tenant"]),
    created_at: timestamp.optional(),
    updated_at: timestamp.optional(),
  })
  .meta({ id: "ModelPrice" });
export const ModelPriceList = z.object({ prices: z.array(ModelPrice).describe("This tenant's entries, then the defaults") }).meta({ id: "ModelPriceList" });
