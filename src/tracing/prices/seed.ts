/**
 * The default model price table, built from `@pydantic/genai-prices` (MIT), the price data the
 * package bundles (no network: its auto-update is never enabled here).
 *
 * Mapping, per model of each provider:
 * - id `default:<provider>:<model id>`, and `…@<YYYY-MM-DD>` for a price that starts on a later
 *   date (one entry per effective date, `effective_from` set), so ids are stable across versions;
 * - the package's match rule (equals / starts_with / ends_with / contains / regex / or / and) →
 *   one JS regular expression (`matchToRegex`); cost.ts applies it case-insensitively, as the
 *   package lowercases model names (its own `regex` rules are case-sensitive: a negligible
 *   difference). Date suffixes also match without their dashes (`-20240806` as `-2024-08-06`),
 *   the package's own fallback;
 * - prices per million tokens: `input_mtok`/`output_mtok`, and as details `cache_read_mtok` →
 *   `cache_read`, `cache_write_mtok` → `cache_creation` and `ephemeral_5m_input_tokens`,
 *   `cache_write_1h_mtok` → `ephemeral_1h_input_tokens` (the 5-minute price when absent),
 *   `input_audio_mtok`/`output_audio_mtok` → `audio`, `*_image_mtok` → `image`, `*_video_mtok`
 *   → `video`, `output_reasoning_mtok` → `reasoning` (the detail keys of usage.ts). Prices per
 *   request, search, page or hour, and cached audio/image reads, have no token counterpart in a
 *   run's usage and are left out; a model priced only that way is left out (no price rather than
 *   a wrong one), and a model with an empty price (free tiers, subscriptions) costs $0.
 *
 * Not linear, so approximated:
 * - tiered prices (e.g. Claude Sonnet 4.5 and Gemini 2.5 Pro cost more above 200k input tokens):
 *   the base tier only, so calls over the threshold are under-costed;
 * - time-of-day prices (DeepSeek's off-peak discounts): the price in force for the larger part of
 *   the day;
 * - dated prices: one entry per start date, the first with no date.
 *
 * Entry order decides between equally dated matches (findPrice keeps it): providers whose own
 * model names these are (the package's providers with a `model_match` rule: openai, anthropic,
 * google, …) come first, then hosts and routers; within a provider the package's order, which the
 * package itself searches first to last.
 */
import { waitForUpdate, type MatchLogic, type ModelInfo, type Provider } from "@pydantic/genai-prices";
import type { ModelPrice } from "../accounting/cost.js";

/** A default price: a ModelPrice plus the model's name for display. */
export interface SeedPrice extends ModelPrice {
  model_name: string;
  provider: string;
}

type PackagePrice = Record<string, unknown>;
type ConditionalPrice = { constraint?: { type?: string; start_date?: string; start_time?: string; end_time?: string }; prices: PackagePrice };

// The bundled data, as the package holds it (no update is ever requested, so this resolves at once).
const bundled: Provider[] = (await waitForUpdate()) ?? [];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** Dates inside names also match without their dashes (`-2024-08-06` and `-20240806`). */
const flexibleDates = (pattern: string) =>
  pattern.replace(/-(20\d{2})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])/g, "-$1-?$2-?$3").replaceAll("\\d{4}-\\d{2}-\\d{2}", "\\d{4}-?\\d{2}-?\\d{2}");

const literal = (s: string) => flexibleDates(escape(s));

/**
 * A genai-prices match rule → a JS regex tested anywhere in the name (as cost.ts does). `and`
 * becomes lookaheads anchored at the start, each free to find its part anywhere.
 */
export function matchToRegex(rule: MatchLogic): string {
  if ("or" in rule) return `(?:${rule.or.map(matchToRegex).join("|")})`;
  if ("and" in rule) return `^${rule.and.map((r) => `(?=[\\s\\S]*?${matchToRegex(r)})`).join("")}`;
  if ("equals" in rule) return `(?:^${literal(rule.equals)}$)`;
  if ("starts_with" in rule) return `(?:^${literal(rule.starts_with)})`;
  if ("ends_with" in rule) return `(?:${literal(rule.ends_with)}$)`;
  if ("contains" in rule) return `(?:${literal(rule.contains)})`;
  if ("regex" in rule) return `(?:${flexibleDates(rule.regex)})`;
  throw new Error(`unknown match rule ${JSON.stringify(rule)}`);
}

/** The base price of a flat or tiered price (tiers ignored, see above). */
function base(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (v && typeof v === "object" && typeof (v as { base?: unknown }).base === "number") return (v as { base: number }).base;
  return undefined;
}

const INPUT_DETAILS: [string, string][] = [
  ["cache_read_mtok", "cache_read"],
  ["cache_write_mtok", "cache_creation"],
  ["cache_write_mtok", "ephemeral_5m_input_tokens"],
  ["cache_write_1h_mtok", "ephemeral_1h_input_tokens"],
  ["input_audio_mtok", "audio"],
  ["input_image_mtok", "image"],
  ["input_video_mtok", "video"],
];
const OUTPUT_DETAILS: [string, string][] = [
  ["output_reasoning_mtok", "reasoning"],
  ["output_audio_mtok", "audio"],
  ["output_image_mtok", "image"],
  ["output_video_mtok", "video"],
];

type Prices = Pick<ModelPrice, "input_per_million" | "output_per_million" | "input_details_per_million" | "output_details_per_million">;

function toPrices(p: PackagePrice): Prices | undefined {
  const input = base(p.input_mtok);
  const output = base(p.output_mtok);
  // an empty price is a free model ($0); one priced only per request, page, hour… has no token price
  const free = Object.values(p).every((v) => v === undefined);
  if (input === undefined && output === undefined && !free) return undefined;
  const details = (map: [string, string][]) => {
    const out: Record<string, number> = {};
    for (const [from, to] of map) {
      const v = base(p[from]);
      if (v !== undefined) out[to] = v;
    }
    if (out.ephemeral_1h_input_tokens === undefined && out.ephemeral_5m_input_tokens !== undefined) out.ephemeral_1h_input_tokens = out.ephemeral_5m_input_tokens;
    return Object.keys(out).length ? out : undefined;
  };
  const inDetails = details(INPUT_DETAILS);
  const outDetails = details(OUTPUT_DETAILS);
  return {
    input_per_million: input ?? 0,
    output_per_million: output ?? 0,
    ...(inDetails ? { input_details_per_million: inDetails } : {}),
    ...(outDetails ? { output_details_per_million: outDetails } : {}),
  };
}

const secondsOfDay = (hhmmss: string) => {
  const [h = 0, m = 0, s = 0] = hhmmss.replace(/Z$/, "").split(":").map(Number);
  return h * 3600 + m * 60 + s;
};

/** The package's rule for a model's conditional prices at an instant (its `we`): last match wins. */
function priceAt(list: ConditionalPrice[], t: Date): PackagePrice {
  for (let i = list.length - 1; i >= 0; i--) {
    const { constraint: c, prices } = list[i]!;
    if (!c) return prices;
    if (c.start_date !== undefined && c.start_time === undefined) {
      if (t >= new Date(c.start_date)) return prices;
    } else if (c.start_time !== undefined && c.end_time !== undefined) {
      const now = t.getUTCHours() * 3600 + t.getUTCMinutes() * 60 + t.getUTCSeconds();
      const [from, to] = [secondsOfDay(c.start_time), secondsOfDay(c.end_time)];
      if (to < from ? now >= from || now < to : now >= from && now < to) return prices;
    }
  }
  return list[0]!.prices;
}

/** The price on a day: the one in force for most of it (a quarter-hour sample). */
function priceOnDay(list: ConditionalPrice[], day: string): PackagePrice {
  const counts = new Map<PackagePrice, number>();
  const start = Date.parse(`${day}T00:00:00Z`);
  for (let q = 0; q < 96; q++) {
    const p = priceAt(list, new Date(start + q * 15 * 60_000));
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

/** A model's prices by effective date (undefined: from the start), identical neighbours merged. */
function datedPrices(model: ModelInfo): { from?: string; prices: PackagePrice }[] {
  if (!Array.isArray(model.prices)) return [{ prices: model.prices as PackagePrice }];
  const list = model.prices as ConditionalPrice[];
  const dates = [...new Set(list.map((c) => c.constraint?.start_date).filter((d): d is string => typeof d === "string"))].sort();
  const out: { from?: string; prices: PackagePrice }[] = [];
  for (const day of [undefined, ...dates]) {
    const prices = priceOnDay(list, day ?? "1970-01-01");
    if (out.length && JSON.stringify(out.at(-1)!.prices) === JSON.stringify(prices)) continue;
    out.push({ ...(day ? { from: day } : {}), prices });
  }
  return out;
}

function convert(providers: Provider[]): SeedPrice[] {
  // model makers first (see the header); a stable sort keeps the package order otherwise
  const ordered = [...providers].sort((a, b) => Number(Boolean(b.model_match)) - Number(Boolean(a.model_match)));
  const out: SeedPrice[] = [];
  const seen = new Set<string>();
  for (const provider of ordered) {
    for (const model of provider.models) {
      let pattern: string;
      try {
        pattern = matchToRegex(model.match);
        new RegExp(pattern, "i");
      } catch {
        continue; // a rule we cannot express is left out rather than matched wrongly
      }
      for (const { from, prices } of datedPrices(model)) {
        const p = toPrices(prices);
        if (!p) continue;
        const id = `default:${provider.id}:${model.id}${from ? `@${from}` : ""}`;
        if (seen.has(id)) continue;
        seen.add(id);
        out.push({ id, model_name: model.id, match_pattern: pattern, provider: provider.id, effective_from: from ?? null, ...p });
      }
    }
  }
  return out;
}

let cached: SeedPrice[] | undefined;

/** The default prices (built once; callers get copies they may change). */
export function defaultPrices(): SeedPrice[] {
  cached ??= convert(bundled);
  return cached.map((p) => ({
    ...p,
    ...(p.input_details_per_million ? { input_details_per_million: { ...p.input_details_per_million } } : {}),
    ...(p.output_details_per_million ? { output_details_per_million: { ...p.output_details_per_million } } : {}),
  }));
}

/** The package's provider ids and their fallbacks (for checks against model.ts's aliases). */
export function packageProviders(): { id: string; fallbacks: string[] }[] {
  return bundled.map((p) => ({ id: p.id, fallbacks: [...(p.fallback_model_providers ?? [])] }));
}
