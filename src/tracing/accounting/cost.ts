/**
 * Cost of an LLM call from a model price table (pure). A price entry matches a model name by
 * regex (and optionally a provider), applies from its effective date, and prices tokens per
 * million, with optional prices per token type (cache_read, cache_creation, reasoning, audio…).
 * Priced detail tokens are charged at their own price and the rest of input/output at the base
 * price (input counts are inclusive). No matching price → no cost, with the reason — never $0.
 */
import type { Usage } from "./usage.js";

export interface ModelPrice {
  id: string;
  /** Regular expression on the model name. */
  match_pattern: string;
  provider?: string | null;
  /** ISO date from which this price applies. */
  effective_from?: string | null;
  input_per_million: number;
  output_per_million: number;
  input_details_per_million?: Record<string, number>;
  output_details_per_million?: Record<string, number>;
}

/** Dollars of one call (or of several added up). */
export interface CostFigures {
  input_cost: number;
  output_cost: number;
  total_cost: number;
  input_cost_details?: Record<string, number>;
  output_cost_details?: Record<string, number>;
}

export interface Cost extends CostFigures {
  price_id: string;
}

export type CostResult = { ok: true; cost: Cost } | { ok: false; reason: string };

/**
 * The entries of a table whose pattern and provider match a model, before the date is applied.
 * Memoised per table (by identity) and model/provider: the default table has ~1,700 patterns,
 * and ingestion asks for the same few models over and over.
 */
const matchCache = new WeakMap<ModelPrice[], Map<string, ModelPrice[]>>();
const regexCache = new Map<string, RegExp | null>();
const MAX_MODELS_PER_TABLE = 10_000;

function compiled(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, "i");
    } catch {
      re = null; // a broken pattern in the table matches nothing
    }
    regexCache.set(pattern, re);
  }
  return re;
}

function matching(prices: ModelPrice[], model: string, provider: string | undefined): ModelPrice[] {
  let perTable = matchCache.get(prices);
  if (!perTable) matchCache.set(prices, (perTable = new Map()));
  const key = `${provider?.toLowerCase() ?? ""}\u0000${model}`;
  let hit = perTable.get(key);
  if (!hit) {
    hit = prices.filter((p) => {
      if (p.provider && provider && p.provider.toLowerCase() !== provider.toLowerCase()) return false;
      return compiled(p.match_pattern)?.test(model) ?? false;
    });
    if (perTable.size >= MAX_MODELS_PER_TABLE) perTable.clear(); // model names are client input: bound the memory
    perTable.set(key, hit);
  }
  return hit;
}

/** The price for a model at a time: the latest effective entry among those that match. */
export function findPrice(prices: ModelPrice[], model: string | undefined, provider: string | undefined, at: Date): ModelPrice | undefined {
  if (!model) return undefined;
  const candidates = matching(prices, model, provider).filter((p) => !p.effective_from || new Date(p.effective_from) <= at);
  // latest effective date first; an entry naming a provider beats one that does not
  candidates.sort(
    (a, b) =>
      (b.effective_from ? Date.parse(b.effective_from) : 0) - (a.effective_from ? Date.parse(a.effective_from) : 0) ||
      Number(Boolean(b.provider)) - Number(Boolean(a.provider)),
  );
  return candidates[0];
}

function side(tokens: number, base: number, details: Record<string, number> | undefined, prices: Record<string, number> | undefined) {
  let rest = tokens;
  let cost = 0;
  const costDetails: Record<string, number> = {};
  for (const [kind, count] of Object.entries(details ?? {})) {
    const price = prices?.[kind];
    if (price === undefined) continue;
    const c = (count * price) / 1e6;
    costDetails[kind] = c;
    cost += c;
    rest -= count;
  }
  cost += (Math.max(0, rest) * base) / 1e6;
  return { cost, details: Object.keys(costDetails).length ? costDetails : undefined };
}

export function computeCost(usage: Usage | undefined, model: string | undefined, provider: string | undefined, at: Date, prices: ModelPrice[]): CostResult {
  if (!usage) return { ok: false, reason: "no token usage" };
  if (!model) return { ok: false, reason: "no model name on the run" };
  const price = findPrice(prices, model, provider, at);
  if (!price) return { ok: false, reason: `no price for model "${model}"${provider ? ` (${provider})` : ""}` };
  const input = side(usage.input_tokens, price.input_per_million, usage.input_token_details, price.input_details_per_million);
  const output = side(usage.output_tokens, price.output_per_million, usage.output_token_details, price.output_details_per_million);
  return {
    ok: true,
    cost: {
      input_cost: input.cost,
      output_cost: output.cost,
      total_cost: input.cost + output.cost,
      ...(input.details ? { input_cost_details: input.details } : {}),
      ...(output.details ? { output_cost_details: output.details } : {}),
      price_id: price.id,
    },
  };
}
