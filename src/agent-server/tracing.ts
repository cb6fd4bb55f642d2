/**
 * The agent server traces its own runs when LangSmith-style tracing is configured
 * (`LANGSMITH_TRACING=true`, `LANGSMITH_ENDPOINT`, `LANGSMITH_PROJECT`, `LANGSMITH_API_KEY`, or the
 * older LANGCHAIN_* names): LangChain's tracer sends every graph run, with run, thread, assistant
 * and graph ids in its metadata (execute.ts). Traces are batched in the background, so shutdown
 * flushes them — otherwise the last runs before a restart would never arrive.
 */
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import type { Logger } from "../shared/logging.js";

const first = (env: NodeJS.ProcessEnv, ...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== "");

export function tracingConfig(env: NodeJS.ProcessEnv = process.env): { endpoint: string; project: string } | undefined {
  const on = first(env, "LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING");
  if (on?.toLowerCase() !== "true") return undefined;
  return {
    endpoint: first(env, "LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT") ?? "https://api.smith.langchain.com",
    project: first(env, "LANGSMITH_PROJECT", "LANGCHAIN_PROJECT", "LANGCHAIN_SESSION") ?? "default",
  };
}

/** Wait for traced runs to be handed over and uploaded (bounded: a down tracing server must not block shutdown). */
export async function flushTraces(logger: Logger, timeoutMs = 10_000): Promise<void> {
  const flush = (async () => {
    await awaitAllCallbacks();
    // a tracer built without a client uses the process-wide default client: the one runs used
    const client = new LangChainTracer().client as { awaitPendingTraceBatches?: () => Promise<void> };
    await client.awaitPendingTraceBatches?.();
  })();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
  try {
    if ((await Promise.race([flush.then(() => "done" as const), timedOut])) === "timeout") logger.warn({ timeoutMs }, "traces not flushed in time; some may be lost");
  } catch (err) {
    logger.warn({ err }, "flushing traces failed");
  } finally {
    clearTimeout(timer);
  }
}
