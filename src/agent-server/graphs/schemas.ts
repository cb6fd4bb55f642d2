/**
 * JSON schemas of a graph, for `/assistants/{id}/schemas`. Graphs whose state is a zod schema get
 * exact schemas from LangGraph; Annotation-based graphs get an object schema listing their state
 * keys (TypeScript types are not available at run time).
 */
import { getConfigTypeSchema, getInputTypeSchema, getOutputTypeSchema, getStateTypeSchema } from "@langchain/langgraph/zod/schema";
import type { CompiledGraph } from "./registry.js";

function channelKeys(graph: CompiledGraph): string[] {
  const channels = (graph as { channels?: Record<string, unknown> }).channels ?? {};
  return Object.keys(channels).filter((k) => !k.startsWith("__") && !k.startsWith("branch:") && !k.includes(":"));
}

function looseObject(keys: string[]): Record<string, unknown> {
  return { type: "object", properties: Object.fromEntries(keys.map((k) => [k, {}])) };
}

function safe<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

export function graphSchemas(graph: CompiledGraph) {
  const fallback = looseObject(channelKeys(graph));
  const config = safe(() => getConfigTypeSchema(graph)) ?? null;
  return {
    input_schema: safe(() => getInputTypeSchema(graph)) ?? fallback,
    output_schema: safe(() => getOutputTypeSchema(graph)) ?? fallback,
    state_schema: safe(() => getStateTypeSchema(graph)) ?? fallback,
    config_schema: config,
    context_schema: config,
  };
}

/** Whether a graph's state has a `messages` key (what A2A and chat UIs need). */
export function hasMessagesKey(graph: CompiledGraph): boolean {
  return channelKeys(graph).includes("messages");
}
