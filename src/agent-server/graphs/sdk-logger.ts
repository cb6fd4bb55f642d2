/**
 * The logger graphs get from `getLogger()` of `@langchain/langgraph-sdk/logging`, as on LangGraph
 * Platform. The SDK looks it up under a global symbol (`Symbol.for`), so registering it on
 * `globalThis` reaches every copy of the SDK — ours (a devDependency) and the one a user's project
 * brings. It must be in place before graphs are imported: graphs call `getLogger()` at import time.
 *
 * The SDK's Logger is winston-shaped (`info(message, ...meta)`, `info(object)`, eleven levels, each
 * returning the logger); lines go to the server's pino logger, tagged with the run and node when
 * called inside a node.
 */
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { Logger } from "../../shared/logging.js";

const GLOBAL_LOGGER = Symbol.for("langgraph.api.sdk-logger");

type PinoLevel = "error" | "warn" | "info" | "debug" | "trace";
/** winston's npm and cli levels → pino's. */
const LEVELS: Record<string, PinoLevel> = {
  error: "error",
  warn: "warn",
  help: "info",
  data: "info",
  info: "info",
  prompt: "info",
  http: "info",
  input: "info",
  verbose: "debug",
  debug: "debug",
  silly: "trace",
};

/** Fields naming where a line was logged from: the run and node, when inside a graph's node. */
function runFields(): Record<string, unknown> {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as
    | { configurable?: Record<string, unknown>; metadata?: Record<string, unknown> }
    | undefined;
  if (!config) return {};
  const pick = (v: unknown) => (typeof v === "string" || typeof v === "number" ? v : undefined);
  const fields: Record<string, unknown> = {
    run_id: pick(config.metadata?.run_id ?? config.configurable?.run_id),
    thread_id: pick(config.metadata?.thread_id ?? config.configurable?.thread_id),
    graph_id: pick(config.metadata?.graph_id ?? config.configurable?.graph_id),
    langgraph_node: pick(config.metadata?.langgraph_node),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** One winston-style call → one pino line. Pure apart from the logger it writes to. */
export function logCall(logger: Logger, level: PinoLevel, args: unknown[]): void {
  const [first, ...rest] = args;
  const fields: Record<string, unknown> = { component: "graph", ...runFields() };
  let message: string | undefined;
  if (typeof first === "string") message = first;
  else if (first instanceof Error) fields.err = first;
  else if (first && typeof first === "object") {
    const { message: m, ...obj } = first as Record<string, unknown>;
    Object.assign(fields, obj);
    if (m !== undefined) message = String(m);
  } else if (first !== undefined) message = String(first);
  for (const meta of rest) {
    if (meta instanceof Error) fields.err = meta;
    else if (meta && typeof meta === "object") Object.assign(fields, meta);
    else if (meta !== undefined) message = `${message ?? ""} ${String(meta)}`;
  }
  logger[level](fields, message ?? "");
}

/** Install the graphs' logger (replacing an earlier one: the newest server's logger wins). */
export function registerSdkLogger(logger: Logger): void {
  const sdkLogger: Record<string, unknown> = {};
  for (const [name, level] of Object.entries(LEVELS)) {
    sdkLogger[name] = (...args: unknown[]) => {
      logCall(logger, level, args);
      return sdkLogger;
    };
  }
  (globalThis as Record<symbol, unknown>)[GLOBAL_LOGGER] = sdkLogger;
}
