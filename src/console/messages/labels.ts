/**
 * The words the message view puts on things (pure): role headers, media names, usage and the
 * per-call summary of an LLM run.
 */
import type { RunDetail } from "../api/types";
import { fmtCost, fmtDuration, fmtTokens } from "../format";

const ROLE_LABELS: Record<string, string> = {
  system: "System",
  user: "User",
  assistant: "Assistant",
  tool: "Tool",
  reasoning: "Reasoning",
};

/** The header of a message; an unknown role is shown as sent (it is text, never markup). */
export function roleLabel(role: unknown): string {
  return typeof role === "string" && Object.hasOwn(ROLE_LABELS, role) ? ROLE_LABELS[role]! : String(role ?? "unknown");
}

/** The CSS modifier of a role: known roles only, so a payload cannot pick class names. */
export function roleClass(role: unknown): string {
  return typeof role === "string" && Object.hasOwn(ROLE_LABELS, role) ? `msg-${role}` : "msg-other";
}

const str = (x: unknown): string | undefined => (typeof x === "string" && x.trim() !== "" ? x : undefined);
const obj = (x: unknown): Record<string, unknown> => (typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : {});

/** What a media block is called: its file name, title or id, else its kind. */
export function mediaName(block: { type?: unknown; id?: unknown; extras?: unknown }): string {
  const extras = obj(block.extras);
  return str(extras.filename) ?? str(extras.title) ?? str(block.id) ?? String(block.type ?? "media");
}

const num = (x: unknown): number | undefined => (typeof x === "number" && Number.isFinite(x) ? x : undefined);

/**
 * Token counts of a message's usage_metadata, in any provider's spelling (LangSmith/Anthropic
 * `input_tokens`, OpenAI chat `prompt_tokens`); undefined when it has none.
 */
export function usageLine(usage: unknown): string | undefined {
  const u = obj(usage);
  const input = num(u.input_tokens) ?? num(u.prompt_tokens);
  const output = num(u.output_tokens) ?? num(u.completion_tokens);
  const total = num(u.total_tokens) ?? (input !== undefined && output !== undefined ? input + output : undefined);
  if (input === undefined && output === undefined && total === undefined) return undefined;
  return `${fmtTokens(input)} in · ${fmtTokens(output)} out · ${fmtTokens(total)} total`;
}

const COST_SOURCES: Record<string, string> = { client: "sent by the client", price: "from the price table" };

export interface SummaryItem {
  label: string;
  value: string;
  /** A short qualifier shown as a marker beside the value (e.g. "estimated"). */
  marker?: string;
  /** Explanation shown after the value (the cost's source, or why there is none). */
  note?: string;
}

/** The per-call header of an LLM run: model, tokens, cost, TTFT, latency. */
export function callSummary(run: RunDetail): SummaryItem[] {
  const r = obj(run);
  const items: SummaryItem[] = [];
  const model = str(r.model);
  const provider = str(r.provider);
  items.push({ label: "Model", value: model ?? "—", ...(provider ? { note: provider } : {}) });

  const usage = r.usage === null || r.usage === undefined ? undefined : obj(r.usage);
  const tokens = usage ? usageLine(usage) : undefined;
  items.push({ label: "Tokens", value: tokens ?? "—", ...(usage?.estimated === true ? { marker: "estimated" } : {}) });

  const cost = r.cost === null || r.cost === undefined ? undefined : obj(r.cost);
  if (cost) {
    const source = str(cost.source);
    const parts = [cost.input_cost !== undefined && cost.input_cost !== null ? `${fmtCost(cost.input_cost as number | string)} in` : undefined, cost.output_cost !== undefined && cost.output_cost !== null ? `${fmtCost(cost.output_cost as number | string)} out` : undefined].filter(Boolean);
    const how = source ? (Object.hasOwn(COST_SOURCES, source) ? COST_SOURCES[source] : source) : undefined;
    const note = [parts.join(" · "), how].filter(Boolean).join("; ");
    items.push({ label: "Cost", value: fmtCost(cost.total_cost as number | string | null), ...(note ? { note } : {}) });
  } else {
    const reason = str(r.cost_reason);
    items.push({ label: "Cost", value: "—", ...(reason ? { note: reason } : {}) });
  }

  items.push({ label: "TTFT", value: fmtDuration(num(r.ttft_ms)) });
  items.push({ label: "Latency", value: fmtDuration(num(r.latency_ms)) });
  return items;
}
