import { describe, expect, it } from "vitest";
import { computeCost, findPrice, type ModelPrice } from "../../src/tracing/accounting/cost.js";
import { timeToFirstToken } from "../../src/tracing/accounting/ttft.js";
import { addUsage, normalizeUsage } from "../../src/tracing/accounting/usage.js";

describe("usage normalisation", () => {
  it("converts OpenAI usage, details included", () => {
    expect(
      normalizeUsage({
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        prompt_tokens_details: { cached_tokens: 40, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 8 },
      }),
    ).toEqual({ input_tokens: 100, output_tokens: 20, total_tokens: 120, input_token_details: { cache_read: 40 }, output_token_details: { reasoning: 8 } });
  });

  it("adds Anthropic cache tokens to input (they are reported beside it)", () => {
    expect(normalizeUsage({ input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 30 })).toEqual({
      input_tokens: 135,
      output_tokens: 10,
      total_tokens: 145,
      input_token_details: { cache_read: 30, cache_creation: 5 },
    });
  });

  it("keeps usage_metadata as is, normalising the 1hr spelling, and ignores non-usage objects", () => {
    expect(normalizeUsage({ input_tokens: 3, output_tokens: 2, input_token_details: { ephemeral_1hr_input_tokens: 1 } })).toEqual({
      input_tokens: 3,
      output_tokens: 2,
      total_tokens: 5,
      input_token_details: { ephemeral_1h_input_tokens: 1 },
    });
    expect(normalizeUsage({ foo: 1 })).toBeUndefined();
    expect(normalizeUsage(null)).toBeUndefined();
  });

  it("adds usages with their details", () => {
    const sum = addUsage(normalizeUsage({ input_tokens: 1, output_tokens: 1, input_token_details: { cache_read: 1 } }), normalizeUsage({ input_tokens: 2, output_tokens: 3 }));
    expect(sum).toEqual({ input_tokens: 3, output_tokens: 4, total_tokens: 7, input_token_details: { cache_read: 1 } });
  });
});

describe("cost", () => {
  const prices: ModelPrice[] = [
    { id: "gpt-4o-mini", match_pattern: "^gpt-4o-mini", provider: "openai", input_per_million: 2, output_per_million: 3, input_details_per_million: { cache_read: 1 } },
    { id: "gpt-4o-mini-2027", match_pattern: "^gpt-4o-mini", provider: "openai", effective_from: "2027-01-01", input_per_million: 1, output_per_million: 1 },
    { id: "broken", match_pattern: "(", input_per_million: 9, output_per_million: 9 },
  ];

  it("charges priced detail tokens at their price and the rest at the base price (LangSmith's example)", () => {
    const r = computeCost({ input_tokens: 20, output_tokens: 10, total_tokens: 30, input_token_details: { cache_read: 5 } }, "gpt-4o-mini", "openai", new Date("2026-11-21"), prices);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.cost.input_cost).toBeCloseTo(3.5e-5, 12);
    expect(r.cost.output_cost).toBeCloseTo(3e-5, 12);
    expect(r.cost.total_cost).toBeCloseTo(6.5e-5, 12);
    expect(r.cost.input_cost_details?.cache_read).toBeCloseTo(5e-6, 12);
    expect(r.cost.price_id).toBe("gpt-4o-mini");
  });

  it("uses the price in effect at the run's time, and reports why there is no cost instead of $0", () => {
    expect(findPrice(prices, "gpt-4o-mini-2024-07-18", "openai", new Date("2027-02-01"))?.id).toBe("gpt-4o-mini-2027");
    expect(findPrice(prices, "gpt-4o-mini", "anthropic", new Date("2026-11-21"))).toBeUndefined();
    const none = computeCost({ input_tokens: 1, output_tokens: 1, total_tokens: 2 }, "mystery-model", undefined, new Date(), prices);
    expect(none).toEqual({ ok: false, reason: 'no price for model "mystery-model"' });
    expect(computeCost(undefined, "gpt-4o-mini", undefined, new Date(), prices)).toEqual({ ok: false, reason: "no token usage" });
  });
});

describe("time to first token", () => {
  it("is the first new_token event after the start, or a supplied first_token_time", () => {
    const start = "2026-11-21T10:00:00.000Z";
    const events = [
      { name: "start", time: "2026-11-21T10:00:00.001Z" },
      { name: "new_token", time: "2026-11-21T10:00:00.350Z" },
      { name: "new_token", time: "2026-11-21T10:00:00.250Z" },
    ];
    expect(timeToFirstToken(start, events)).toBe(250);
    expect(timeToFirstToken(start, [], "2026-11-21T10:00:01.000Z")).toBe(1000);
    expect(timeToFirstToken(Date.parse(start), events)).toBe(250);
    expect(timeToFirstToken(start, [{ name: "end", time: start }])).toBeUndefined();
  });
});
