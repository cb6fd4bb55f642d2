/**
 * Request models of the agent server API, in zod. They validate requests (→ 422 naming the field)
 * and generate `/openapi.json`. Field names follow the LangGraph Platform API that
 * `@langchain/langgraph-sdk` speaks.
 */
import { z } from "zod";
import { MULTITASK_STRATEGIES } from "../../shared/config.js";

const json = z.record(z.string(), z.unknown());
export const uuid = z.uuid({ error: "must be a UUID" });

export const STREAM_MODES = [
  "values",
  "updates",
  "messages",
  "messages-tuple",
  "events",
  "debug",
  "custom",
  "tasks",
  "checkpoints",
] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

export const RUN_STATUSES = ["pending", "running", "success", "error", "timeout", "interrupted"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const THREAD_STATUSES = ["idle", "busy", "interrupted", "error"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

const sortOrder = z.enum(["asc", "desc"]);
const limit = (max = 1000, dflt = 10) => z.coerce.number().int().min(1).max(max).default(dflt);
const offset = z.coerce.number().int().min(0).default(0);

export const configSchema = z
  .object({
    tags: z.array(z.string()).optional(),
    recursion_limit: z.number().int().positive().optional(),
    configurable: json.optional(),
  })
  .loose();

// ---- assistants ------------------------------------------------------------------------------
export const assistantCreate = z.object({
  assistant_id: uuid.optional(),
  graph_id: z.string().min(1),
  config: configSchema.optional(),
  context: json.optional(),
  metadata: json.optional(),
  if_exists: z.enum(["raise", "do_nothing"]).default("raise"),
  name: z.string().optional(),
  description: z.string().nullish(),
});
export const assistantPatch = z.object({
  graph_id: z.string().min(1).optional(),
  config: configSchema.optional(),
  context: json.optional(),
  metadata: json.optional(),
  name: z.string().optional(),
  description: z.string().nullish(),
});
export const assistantSearch = z.object({
  metadata: json.optional(),
  graph_id: z.string().optional(),
  name: z.string().optional(),
  limit: limit(),
  offset,
  sort_by: z.enum(["assistant_id", "graph_id", "name", "created_at", "updated_at"]).optional(),
  sort_order: sortOrder.optional(),
  select: z.array(z.string()).optional(),
});
export const assistantCount = z.object({ metadata: json.optional(), graph_id: z.string().optional(), name: z.string().optional() });
export const assistantVersionsSearch = z.object({ metadata: json.optional(), limit: limit(), offset });
export const assistantSetLatest = z.object({ version: z.number().int().min(1) });

// ---- threads ---------------------------------------------------------------------------------
const supersteps = z.array(
  z.object({
    updates: z.array(z.object({ values: z.unknown().optional(), command: z.unknown().optional(), as_node: z.string() })),
  }),
);
/**
 * A thread's TTL, as the SDK sends it: `{ttl: minutes, strategy: "delete"}` (a bare number is read
 * as minutes too). The thread is deleted that long after its last update.
 */
const threadTtl = z
  .union([
    z.number(),
    z.object({ ttl: z.number(), strategy: z.literal("delete", { error: 'only "delete" is supported' }).optional() }),
  ])
  .transform((v) => (typeof v === "number" ? v : v.ttl))
  .pipe(z.number().positive("must be a positive number of minutes").max(525_600_000, "must be at most 525600000 minutes (1,000 years)"));
export const threadCreate = z.object({
  thread_id: uuid.optional(),
  metadata: json.optional(),
  if_exists: z.enum(["raise", "do_nothing"]).default("raise"),
  supersteps: supersteps.optional(),
  graph_id: z.string().optional(),
  ttl: threadTtl.nullish(),
});
export const threadPatch = z.object({ metadata: json.optional(), ttl: threadTtl.nullish() });
export const threadSearch = z.object({
  metadata: json.optional(),
  ids: z.array(uuid).optional(),
  values: json.optional(),
  status: z.enum(THREAD_STATUSES).optional(),
  limit: limit(),
  offset,
  sort_by: z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]).optional(),
  sort_order: sortOrder.optional(),
  select: z.array(z.string()).optional(),
});
export const threadCount = z.object({ metadata: json.optional(), values: json.optional(), status: z.enum(THREAD_STATUSES).optional() });
export const threadPrune = z.object({
  thread_ids: z.array(uuid).min(1),
  strategy: z.enum(["delete", "keep_latest"]).default("delete"),
});
export const checkpointRef = z
  .object({
    // null where the server answered null (a subgraph task's checkpoint names no checkpoint id)
    thread_id: z.string().nullish(),
    checkpoint_ns: z.string().nullish(),
    checkpoint_id: z.string().nullish(),
    checkpoint_map: json.nullish(),
  })
  .loose();
export const stateUpdate = z.object({
  values: z.unknown().optional(),
  as_node: z.string().optional(),
  checkpoint_id: z.string().optional(),
  checkpoint: checkpointRef.optional(),
});
export const stateCheckpointQuery = z.object({ checkpoint: checkpointRef, subgraphs: z.boolean().optional() });
export const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  before: z.union([z.string(), checkpointRef]).optional(),
  metadata: json.optional(),
  checkpoint: checkpointRef.optional(),
});

// ---- runs ------------------------------------------------------------------------------------
const streamModeList = z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))]);
const interruptNodes = z.union([z.literal("*"), z.array(z.string())]);
const command = z
  .object({
    goto: z.unknown().optional(),
    update: z.unknown().optional(),
    resume: z.unknown().optional(),
  })
  .loose();

const runCreateBase = z.object({
  assistant_id: z.string().min(1, "must be an assistant id or a graph id"),
  input: z.unknown().optional(),
  command: command.nullish(),
  metadata: json.optional(),
  config: configSchema.optional(),
  context: json.optional(),
  checkpoint_id: z.string().optional(),
  checkpoint: checkpointRef.optional(),
  checkpoint_during: z.boolean().optional(),
  durability: z.enum(["exit", "async", "sync"]).optional(),
  webhook: z.url({ error: "must be a URL" }).optional(),
  interrupt_before: interruptNodes.optional(),
  interrupt_after: interruptNodes.optional(),
  on_disconnect: z.enum(["cancel", "continue"]).optional(),
  multitask_strategy: z.enum(MULTITASK_STRATEGIES).optional(),
  stream_mode: streamModeList.optional(),
  stream_subgraphs: z.boolean().optional(),
  stream_resumable: z.boolean().optional(),
  after_seconds: z.number().min(0).optional(),
  if_not_exists: z.enum(["reject", "create"]).optional(),
  feedback_keys: z.array(z.string()).optional(),
  langsmith_tracer: z.unknown().optional(),
});
export const threadRunCreate = runCreateBase;
export const statelessRunCreate = runCreateBase.extend({ on_completion: z.enum(["delete", "keep"]).optional() });
export type RunCreate = z.infer<typeof statelessRunCreate>;

export const runListQuery = z.object({
  limit: limit(1000, 10),
  offset,
  status: z.enum(RUN_STATUSES).optional(),
  select: z.union([z.string(), z.array(z.string())]).optional(),
});
const booleanish = z
  .union([z.boolean(), z.enum(["true", "false", "1", "0", "yes", "no"])])
  .transform((v) => v === true || v === "true" || v === "1" || v === "yes");
export const cancelQuery = z.object({
  wait: booleanish.default(false),
  action: z.enum(["interrupt", "rollback"]).default("interrupt"),
});
export const joinStreamQuery = z.object({
  cancel_on_disconnect: booleanish.default(false),
  stream_mode: z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))]).optional(),
});
export const bulkCancel = z
  .object({
    thread_id: uuid.optional(),
    run_ids: z.array(uuid).optional(),
    status: z.enum(["pending", "running", "all"]).optional(),
  })
  .refine((b) => b.status !== undefined || b.run_ids !== undefined, "give run_ids (with thread_id) or status");

// ---- crons -----------------------------------------------------------------------------------
export const cronCreate = runCreateBase
  .omit({ if_not_exists: true, after_seconds: true, on_disconnect: true })
  .extend({
    schedule: z.string().min(1),
    timezone: z.string().optional(),
    end_time: z.iso.datetime({ offset: true }).optional(),
    on_run_completed: z.enum(["delete", "keep"]).optional(),
    enabled: z.boolean().optional(),
  });
export type CronCreate = z.infer<typeof cronCreate>;
export const cronUpdate = z.object({
  schedule: z.string().min(1).optional(),
  timezone: z.string().optional(),
  end_time: z.iso.datetime({ offset: true }).nullish(),
  input: z.unknown().optional(),
  metadata: json.optional(),
  config: configSchema.optional(),
  context: json.optional(),
  webhook: z.url().nullish(),
  interrupt_before: interruptNodes.optional(),
  interrupt_after: interruptNodes.optional(),
  on_run_completed: z.enum(["delete", "keep"]).optional(),
  enabled: z.boolean().optional(),
  stream_mode: streamModeList.optional(),
  stream_subgraphs: z.boolean().optional(),
  stream_resumable: z.boolean().optional(),
  durability: z.enum(["exit", "async", "sync"]).optional(),
});
export type CronUpdate = z.infer<typeof cronUpdate>;
export const cronSearch = z.object({
  metadata: json.optional(),
  assistant_id: z.string().optional(),
  thread_id: uuid.optional(),
  enabled: z.boolean().optional(),
  limit: limit(),
  offset,
  sort_by: z.enum(["cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at"]).optional(),
  sort_order: sortOrder.optional(),
  select: z.array(z.string()).optional(),
});
export const cronCount = z.object({ metadata: json.optional(), assistant_id: z.string().optional(), thread_id: uuid.optional() });

// ---- store -----------------------------------------------------------------------------------
const namespaceLabel = z
  .string()
  .min(1, "namespace labels must not be empty")
  .refine((s) => !s.includes("."), "namespace labels must not contain '.'");
/**
 * The store's primary key is (namespace joined by ".", key), a btree entry that must fit in a third
 * of a page (2,704 bytes): each half gets 1,024 bytes of UTF-8, refused with 422 beyond.
 */
const STORE_KEY_MAX_BYTES = 1024;
const fitsKey = (s: string) => Buffer.byteLength(s) <= STORE_KEY_MAX_BYTES;
const storeNamespace = z
  .array(namespaceLabel)
  .min(1)
  .refine((ns) => fitsKey(ns.join(".")), `the namespace must be at most ${STORE_KEY_MAX_BYTES} bytes (UTF-8) with its '.' separators`);
const storeKey = z.string().min(1).refine(fitsKey, `must be at most ${STORE_KEY_MAX_BYTES} bytes (UTF-8)`);
export const storePut = z.object({
  namespace: storeNamespace,
  key: storeKey,
  value: json,
  index: z.union([z.literal(false), z.array(z.string())]).nullish(),
  /** Minutes; at most 1,000 years, so the expiry stays a date Postgres can store. */
  ttl: z.number().positive().max(525_600_000, "must be at most 525600000 minutes (1,000 years)").nullish(),
});
export const storeDelete = z.object({ namespace: storeNamespace, key: storeKey });
export const storeGetQuery = z.object({
  namespace: z.string().optional(),
  key: z.string().min(1),
  refresh_ttl: booleanish.optional(),
});
export const storeSearch = z.object({
  namespace_prefix: z.array(z.string()).default([]),
  filter: json.nullish(),
  limit: limit(1000, 10),
  offset,
  query: z.string().nullish(),
  refresh_ttl: z.boolean().nullish(),
});
export const storeListNamespaces = z.object({
  prefix: z.array(z.string()).optional(),
  suffix: z.array(z.string()).optional(),
  max_depth: z.number().int().min(1).optional(),
  limit: limit(1000, 100),
  offset,
});
