/**
 * The model price table as the console edits it (pure): tenant entries and defaults apart, the
 * filter, the form's text fields to and from API bodies, and which entry prices a given model.
 * Which entry applies is the tracing facility's own rule (tracing/accounting/cost.ts findPrice: pure,
 * browser-safe), plus "a tenant entry that matches beats every default" (PriceStore.pricesFor).
 */
import { findPrice } from "../../tracing/accounting/cost";
import type { components } from "../api/tracing.gen";
import type { ModelPrice } from "../api/types";

export interface PriceForm {
  model_name: string;
  match_pattern: string;
  provider: string;
  /** YYYY-MM-DD or empty (always applies). */
  effective_from: string;
  input_per_million: string;
  output_per_million: string;
  /** "cache_read=0.3, cache_creation=3.75" */
  input_details: string;
  output_details: string;
}

/** The body of POST /tracing/model-prices (PATCH takes any part of it). */
export type PriceBody = components["schemas"]["ModelPriceCreateRequest"];

export type FormErrors = Partial<Record<keyof PriceForm, string>>;

export function splitPrices(prices: readonly ModelPrice[]): { tenant: ModelPrice[]; defaults: ModelPrice[] } {
  return { tenant: prices.filter((p) => p.source === "tenant"), defaults: prices.filter((p) => p.source !== "tenant") };
}

function patternMatches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "i").test(text);
  } catch {
    return false;
  }
}

/**
 * Entries whose name, provider or pattern contains the text, or whose pattern matches it as a model
 * name (so typing "gpt-4o-mini-2024-07-18" finds the entries that would price that model).
 */
export function filterPrices(prices: readonly ModelPrice[], text: string): ModelPrice[] {
  const q = text.trim().toLowerCase();
  if (!q) return [...prices];
  return prices.filter(
    (p) =>
      p.model_name.toLowerCase().includes(q) ||
      (p.provider ?? "").toLowerCase().includes(q) ||
      p.match_pattern.toLowerCase().includes(q) ||
      patternMatches(p.match_pattern, text.trim()),
  );
}

/** The entry that prices `model` today: the tenant's when one matches, else a default's. */
export function priceInEffect(tenant: readonly ModelPrice[], defaults: readonly ModelPrice[], model: string, at = new Date()): ModelPrice | undefined {
  const m = model.trim();
  if (!m) return undefined;
  // findPrice returns one of the entries it is given: the API's rows, typed as the cost module's subset
  const pick = (table: readonly ModelPrice[]) => findPrice(table as ModelPrice[], m, undefined, at) as ModelPrice | undefined;
  return pick(tenant) ?? pick(defaults);
}

export function formatDetails(d: Record<string, number> | null | undefined): string {
  return Object.entries(d ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
}

/** "a=1, b=0.5" → {a: 1, b: 0.5}; an error message for anything else. */
export function parseDetails(text: string): { ok: true; value: Record<string, number> } | { ok: false; error: string } {
  const value: Record<string, number> = {};
  for (const part of text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9_.-]+)\s*[=:]\s*(\S+)$/.exec(part);
    if (!m) return { ok: false, error: `"${part}" is not name=price` };
    const n = Number(m[2]);
    if (!Number.isFinite(n) || n < 0) return { ok: false, error: `${m[1]}: "${m[2]}" is not a price (a number ≥ 0)` };
    value[m[1]!] = n;
  }
  return { ok: true, value };
}

export function emptyForm(): PriceForm {
  return { model_name: "", match_pattern: "", provider: "", effective_from: "", input_per_million: "", output_per_million: "", input_details: "", output_details: "" };
}

/** The form for an existing entry (edit), or prefilled from a default (override). */
export function formFrom(p: ModelPrice): PriceForm {
  return {
    model_name: p.model_name,
    match_pattern: p.match_pattern,
    provider: p.provider ?? "",
    effective_from: p.effective_from ? p.effective_from.slice(0, 10) : "",
    input_per_million: String(p.input_per_million),
    output_per_million: String(p.output_per_million),
    input_details: formatDetails(p.input_details_per_million),
    output_details: formatDetails(p.output_details_per_million),
  };
}

function price(text: string): number | undefined {
  if (!text.trim()) return undefined;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The create body, or what is wrong with each field (the API checks again and answers 422). */
export function formToBody(f: PriceForm): { ok: true; body: PriceBody } | { ok: false; errors: FormErrors } {
  const errors: FormErrors = {};
  if (!f.model_name.trim()) errors.model_name = "required";
  if (!f.match_pattern.trim()) errors.match_pattern = "required";
  else {
    try {
      new RegExp(f.match_pattern, "i");
    } catch {
      errors.match_pattern = "not a valid regular expression";
    }
  }
  const input = price(f.input_per_million);
  const output = price(f.output_per_million);
  if (input === undefined) errors.input_per_million = "a price in USD per million tokens (≥ 0)";
  if (output === undefined) errors.output_per_million = "a price in USD per million tokens (≥ 0)";
  if (f.effective_from && !/^\d{4}-\d{2}-\d{2}$/.test(f.effective_from)) errors.effective_from = "a date (YYYY-MM-DD)";
  const inDetails = parseDetails(f.input_details);
  const outDetails = parseDetails(f.output_details);
  if (!inDetails.ok) errors.input_details = inDetails.error;
  if (!outDetails.ok) errors.output_details = outDetails.error;
  if (Object.keys(errors).length || !inDetails.ok || !outDetails.ok) return { ok: false, errors };
  return {
    ok: true,
    body: {
      model_name: f.model_name.trim(),
      match_pattern: f.match_pattern,
      provider: f.provider.trim() || null,
      effective_from: f.effective_from ? `${f.effective_from}T00:00:00.000Z` : null,
      input_per_million: input!,
      output_per_million: output!,
      input_details_per_million: inDetails.value,
      output_details_per_million: outDetails.value,
    },
  };
}

/** PATCH: only the fields that differ from the stored entry (an empty body means nothing to save). */
export function changedFields(before: PriceBody, after: PriceBody): Partial<PriceBody> {
  const out: Partial<PriceBody> = {};
  for (const k of Object.keys(after) as (keyof PriceBody)[]) {
    if (JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null)) (out as Record<string, unknown>)[k] = after[k];
  }
  return out;
}
