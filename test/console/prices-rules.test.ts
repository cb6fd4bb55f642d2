import { describe, expect, it } from "vitest";
import type { ModelPrice } from "../../src/console/api/types";
import { changedFields, emptyForm, filterPrices, formFrom, formToBody, parseDetails, priceInEffect, splitPrices } from "../../src/console/prices/rules";

const def = (model: string, pattern: string, input: number, extra: Partial<ModelPrice> = {}): ModelPrice => ({
  id: `default:openai:${model}`,
  model_name: model,
  match_pattern: pattern,
  provider: "openai",
  effective_from: null,
  input_per_million: input,
  output_per_million: input * 4,
  source: "default",
  ...extra,
});
const own = (id: string, model: string, pattern: string, input: number, extra: Partial<ModelPrice> = {}): ModelPrice => ({ ...def(model, pattern, input), id, provider: null, source: "tenant", ...extra });

const defaults = [def("gpt-4o", "^gpt-4o$", 2.5), def("gpt-4o-mini", "^gpt-4o-mini", 0.15, { input_details_per_million: { cache_read: 0.075 } }), def("claude-3-5-haiku", "^claude-3-5-haiku", 0.8, { provider: "anthropic" })];

describe("the price table", () => {
  it("separates the tenant's entries from the defaults", () => {
    const t = own("t1", "mine", "^mine", 1);
    const { tenant, defaults: d } = splitPrices([t, ...defaults]);
    expect(tenant).toEqual([t]);
    expect(d).toHaveLength(3);
  });

  it("filters by name, provider or pattern, and by a model name the pattern matches", () => {
    expect(filterPrices(defaults, "mini").map((p) => p.model_name)).toEqual(["gpt-4o-mini"]);
    expect(filterPrices(defaults, "ANTHROPIC").map((p) => p.model_name)).toEqual(["claude-3-5-haiku"]);
    // a dated model name is found by the patterns that price it
    expect(filterPrices(defaults, "gpt-4o-mini-2024-07-18").map((p) => p.model_name)).toEqual(["gpt-4o-mini"]);
    expect(filterPrices(defaults, "  ")).toHaveLength(3);
    // a filter that is not a valid regex is still a substring filter
    expect(filterPrices(defaults, "(")).toEqual([]);
  });

  it("picks the tenant's entry over the defaults for a model it matches, else the default", () => {
    const mine = own("t1", "my mini", "^gpt-4o-mini", 0.1);
    expect(priceInEffect([mine], defaults, "gpt-4o-mini-2024-07-18")?.id).toBe("t1");
    expect(priceInEffect([mine], defaults, "gpt-4o")?.id).toBe("default:openai:gpt-4o");
    expect(priceInEffect([mine], defaults, "llama-3")).toBeUndefined();
    // an entry that starts in the future does not apply yet
    const later = own("t2", "future", "^gpt-4o$", 9, { effective_from: "2999-01-01T00:00:00.000Z" });
    expect(priceInEffect([later], defaults, "gpt-4o")?.id).toBe("default:openai:gpt-4o");
  });
});

describe("the price form", () => {
  it("parses prices by token type", () => {
    expect(parseDetails("cache_read=0.3, cache_creation: 3.75")).toEqual({ ok: true, value: { cache_read: 0.3, cache_creation: 3.75 } });
    expect(parseDetails("")).toEqual({ ok: true, value: {} });
    expect(parseDetails("cache_read")).toMatchObject({ ok: false });
    expect(parseDetails("audio=-1")).toMatchObject({ ok: false });
  });

  it("turns a filled form into the create body", () => {
    const r = formToBody({ ...emptyForm(), model_name: " my-model ", match_pattern: "^my-model", input_per_million: "1.5", output_per_million: "6", effective_from: "2025-02-01", input_details: "cache_read=0.5" });
    expect(r).toEqual({
      ok: true,
      body: {
        model_name: "my-model",
        match_pattern: "^my-model",
        provider: null,
        effective_from: "2025-02-01T00:00:00.000Z",
        input_per_million: 1.5,
        output_per_million: 6,
        input_details_per_million: { cache_read: 0.5 },
        output_details_per_million: {},
      },
    });
  });

  it("says what is wrong with each field", () => {
    const r = formToBody({ ...emptyForm(), match_pattern: "(", input_per_million: "abc", output_per_million: "-1", output_details: "x" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(["input_per_million", "match_pattern", "model_name", "output_details", "output_per_million"]);
    expect(r.errors.match_pattern).toMatch(/regular expression/);
  });

  it("prefills from a default (override) and sends only what changed on edit", () => {
    const form = formFrom(defaults[1]!);
    expect(form).toMatchObject({ model_name: "gpt-4o-mini", match_pattern: "^gpt-4o-mini", provider: "openai", input_per_million: "0.15", input_details: "cache_read=0.075" });
    const before = formToBody(form);
    const after = formToBody({ ...form, output_per_million: "0.5" });
    if (!before.ok || !after.ok) throw new Error("form should be valid");
    expect(changedFields(before.body, after.body)).toEqual({ output_per_million: 0.5 });
    expect(changedFields(before.body, before.body)).toEqual({});
  });
});
