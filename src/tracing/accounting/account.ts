/**
 * The token and cost figures of one run (pure): the one entry point ingestion calls.
 *
 * - Usage: what the client sent (extract.ts). Only LLM runs (`run_type: "llm"`) also take usage
 *   from LangChain generations and raw provider responses, and are estimated with a tokenizer
 *   when nothing was sent — once the run has ended (end_time or outputs) and not with an error
 *   (a failed call is normally not billed, and has no output to count).
 * - Cost: costs the client sent win; else, for LLM runs only, the price table (cost.ts) for the
 *   model at the run's start time, looking the price up under the run's provider, then the price
 *   table's name for it and its fallbacks (model.ts priceProviders). Other runs carry only costs
 *   their client computed (tools, retrievers: LangSmith's "other" costs).
 * - No cost is never $0: `cost` is null with the reason.
 * - Time to first token: `first_token_time` sent with the run, else its first `new_token` event.
 */
import type { RunRecord } from "../run.js";
import { computeCost, type CostFigures, type ModelPrice } from "./cost.js";
import { estimateUsage } from "./estimate.js";
import { extractClientCost, extractUsage, type UsageSource } from "./extract.js";
import { identifyModel, priceProviders } from "./model.js";
import { timeToFirstToken } from "./ttft.js";
import type { Usage } from "./usage.js";

export type RunCost = CostFigures;

export interface RunAccounting {
  model?: string;
  provider?: string;
  usage?: Usage;
  /** Where the usage came from; "estimate" when it was counted with a tokenizer. */
  usage_source?: UsageSource | "estimate";
  usage_estimated: boolean;
  cost: RunCost | null;
  cost_source: "client" | "price" | null;
  /** Why there is no cost (set exactly when cost is null). */
  cost_reason?: string;
  /** The price entry used (cost_source "price"). */
  price_id?: string;
  /** ISO 8601. */
  first_token_time?: string;
  ttft_ms?: number;
}

/** Only these sources count for runs that are not LLM calls: what the client deliberately sent. */
const CLIENT_SOURCES = new Set<UsageSource>(["outputs", "metadata", "fields"]);

function toIso(t: string | number | undefined): string | undefined {
  if (t === undefined || t === null || t === "") return undefined;
  const ms = typeof t === "number" ? t : Date.parse(t);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

function firstTokenTime(run: RunRecord): string | undefined {
  const sent = toIso(run.first_token_time);
  if (sent) return sent;
  const times = (run.events ?? [])
    .filter((e) => e?.name === "new_token")
    .map((e) => toIso(e.time))
    .filter((t): t is string => t !== undefined)
    .sort();
  return times[0];
}

const hasOutputs = (run: RunRecord) => run.outputs !== undefined && run.outputs !== null;

export function accountRun(run: RunRecord, prices: ModelPrice[]): RunAccounting {
  const isLlm = run.run_type === "llm";
  const { model, provider } = identifyModel(run);
  const out: RunAccounting = { ...(model ? { model } : {}), ...(provider ? { provider } : {}), usage_estimated: false, cost: null, cost_source: null };

  const sent = extractUsage(run);
  if (sent && (isLlm || CLIENT_SOURCES.has(sent.source))) {
    out.usage = sent.usage;
    out.usage_source = sent.source;
  } else if (isLlm && (run.end_time || hasOutputs(run)) && !run.error) {
    const estimate = estimateUsage(run, model);
    if (estimate) {
      out.usage = estimate.usage;
      out.usage_source = "estimate";
      out.usage_estimated = true;
    }
  }

  const client = extractClientCost(run);
  if (client) {
    const { source: _source, ...cost } = client;
    out.cost = cost;
    out.cost_source = "client";
  } else if (!isLlm) {
    out.cost_reason = `no cost sent with this ${run.run_type ?? "untyped"} run (only LLM runs are priced)`;
  } else if (!out.usage) {
    out.cost_reason = run.end_time || hasOutputs(run) ? "no token usage" : "no token usage (the run has not ended)";
  } else {
    const at = new Date(run.start_time ?? run.end_time ?? Date.now());
    const when = Number.isNaN(at.getTime()) ? new Date() : at;
    let first: string | undefined;
    for (const p of priceProviders(provider)) {
      const r = computeCost(out.usage, model, p, when, prices);
      if (r.ok) {
        const { price_id, ...cost } = r.cost;
        out.cost = cost;
        out.cost_source = "price";
        out.price_id = price_id;
        break;
      }
      first ??= r.reason;
    }
    if (!out.cost) out.cost_reason = first ?? "no price";
  }

  const ftt = firstTokenTime(run);
  if (ftt) out.first_token_time = ftt;
  if (run.start_time) {
    const ttft = timeToFirstToken(run.start_time, undefined, ftt);
    if (ttft !== undefined) out.ttft_ms = ttft;
  }
  return out;
}
