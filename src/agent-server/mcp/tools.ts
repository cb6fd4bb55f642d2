/**
 * How assistants become MCP tools (pure). As on the LangGraph platform: one tool per assistant,
 * named by the assistant's name, described by its description, taking the graph's input schema.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Assistant } from "../storage/assistants.js";

export type JsonSchema = Record<string, unknown>;

/**
 * MCP requires a tool's input schema to be an object schema. A graph's input schema always is
 * (LangGraph inputs are state updates), but a schema we cannot read says nothing: any object then.
 */
export function toolInputSchema(graphInput: unknown): Tool["inputSchema"] {
  if (graphInput && typeof graphInput === "object" && (graphInput as JsonSchema).type === "object") return graphInput as Tool["inputSchema"];
  return { type: "object" };
}

/** The tool of an assistant: its name; its description, else its graph's from langgraph.json. */
export function toolOf(assistant: Pick<Assistant, "name" | "description">, inputSchema: Tool["inputSchema"], graphDescription?: string): Tool {
  const description = assistant.description || graphDescription;
  return { name: assistant.name, ...(description ? { description } : {}), inputSchema };
}

/**
 * Tool names must be unique but assistant names need not be: a name belongs to the oldest
 * assistant that has it (the graph's own assistant, made at start-up, before any copy of it).
 * `assistants` must come oldest first.
 */
export function firstByName<A extends Pick<Assistant, "name">>(assistants: A[]): A[] {
  const seen = new Set<string>();
  return assistants.filter((a) => {
    if (seen.has(a.name)) return false;
    seen.add(a.name);
    return true;
  });
}

/** Why JSON Schema validation failed, as ajv words it, or as the schema check had it. */
export function invalidArgumentsText(toolName: string, reason: string): string {
  return `Input validation error: the arguments of tool "${toolName}" do not match its input schema: ${reason}`;
}

/** What a tool call answers for a run's result (what `/runs/wait` answers): a graph error is a tool error. */
export function toolResultOf(body: unknown): { content: { type: "text"; text: string }[]; isError?: boolean } {
  const failure = body && typeof body === "object" ? (body as { __error__?: { error?: string; message?: string } }).__error__ : undefined;
  if (failure) {
    const text = [failure.error, failure.message].filter(Boolean).join(": ") || "the graph failed";
    return { content: [{ type: "text", text }], isError: true };
  }
  return { content: [{ type: "text", text: JSON.stringify(body ?? null) }] };
}

export function toolErrorOf(text: string): { content: { type: "text"; text: string }[]; isError: true } {
  return { content: [{ type: "text", text }], isError: true };
}
