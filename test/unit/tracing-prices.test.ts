import { calcPrice, findProvider, waitForUpdate, type Provider } from "@pydantic/genai-prices";
import { describe, expect, it } from "vitest";
import { computeCost, findPrice } from "../../src/tracing/accounting/cost.js";
import { PROVIDER_TABLES, priceProviders } from "../../src/tracing/accounting/model.js";
import { defaultPrices, matchToRegex, packageProviders } from "../../src/tracing/prices/seed.js";

const seed = defaultPrices();
const NOW = new Date("2026-11-21T12:00:00Z");
const idFor = (model: string, provider?: string, at = NOW) => findPrice(seed, model, provider, at)?.id;
const byId = (id: string) => seed.find((p) => p.id === id);

describe("default price seed from @pydantic/genai-prices", () => {
  it("has many entries with unique ids and patterns that compile", () => {
    expect(seed.length).toBeGreaterThan(1000);
    expect(new Set(seed.map((p) => p.id)).size).toBe(seed.length);
    for (const p of seed) {
      expect(p.id).toMatch(/^default:[^:]+:.+$/);
      expect(() => new RegExp(p.match_pattern, "i")).not.toThrow();
      expect(Number.isFinite(p.input_per_million) && Number.isFinite(p.output_per_million)).toBe(true);
    }
  });

  it("finds the right price for common model names, with or without the provider", () => {
    expect(idFor("gpt-4o", "openai")).toBe("default:openai:gpt-4o");
    expect(idFor("gpt-4o")).toBe("default:openai:gpt-4o");
    expect(idFor("gpt-4o-mini", "openai")).toBe("default:openai:gpt-4o-mini");
    expect(idFor("gpt-4o-mini")).toBe("default:openai:gpt-4o-mini");
    expect(idFor("gpt-4o-2024-08-06", "openai")).toBe("default:openai:gpt-4o");
    // the package's own fallback: compact dates read as dashed ones
    expect(idFor("gpt-4o-20240806", "openai")).toBe("default:openai:gpt-4o");
    expect(idFor("claude-sonnet-4-5", "anthropic")).toBe("default:anthropic:claude-sonnet-4-5");
    expect(idFor("claude-sonnet-4-5-20250929")).toBe("default:anthropic:claude-sonnet-4-5");
    expect(idFor("claude-3-5-sonnet-20241022", "anthropic")).toBe("default:anthropic:claude-3-5-sonnet");
    expect(idFor("gemini-2.5-pro", "google")).toBe("default:google:gemini-2.5-pro");
    expect(idFor("gemini-2.5-pro")).toBe("default:google:gemini-2.5-pro");
    expect(idFor("GPT-4o", "OpenAI")).toBe("default:openai:gpt-4o");
    expect(idFor("no-such-model-xyz")).toBeUndefined();
  });

  it("takes the prices from the package (gpt-4o: $2.50 in, $1.25 cached, $10 out per 1M)", () => {
    const gpt4o = byId("default:openai:gpt-4o")!;
    expect(gpt4o).toMatchObject({ provider: "openai", model_name: "gpt-4o", input_per_million: 2.5, output_per_million: 10, input_details_per_million: { cache_read: 1.25 } });
    const usage = { input_tokens: 1000, output_tokens: 200, total_tokens: 1200, input_token_details: { cache_read: 400 } };
    const r = computeCost(usage, "gpt-4o-2024-08-06", "openai", NOW, seed);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // 600 × 2.5 + 400 × 1.25 per 1M = $0.002; 200 × 10 per 1M = $0.002
    expect(r.cost.input_cost).toBeCloseTo(0.002, 12);
    expect(r.cost.output_cost).toBeCloseTo(0.002, 12);
    expect(r.cost.total_cost).toBeCloseTo(0.004, 12);
    expect(r.cost.input_cost_details).toEqual({ cache_read: expect.closeTo(0.0005, 12) });
    const pkg = calcPrice({ input_tokens: 1000, cache_read_tokens: 400, output_tokens: 200 }, "gpt-4o-2024-08-06", { providerId: "openai", timestamp: NOW })!;
    expect(r.cost.total_cost).toBeCloseTo(pkg.total_price, 12);
  });

  it("prices Anthropic cache writes (5 minutes and 1 hour) and reads", () => {
    const sonnet = byId("default:anthropic:claude-sonnet-4-5")!;
    // tiered above 200k input tokens in the package: the base tier is kept
    expect(sonnet).toMatchObject({ input_per_million: 3, output_per_million: 15 });
    expect(sonnet.input_details_per_million).toEqual({ cache_read: 0.3, cache_creation: 3.75, ephemeral_5m_input_tokens: 3.75, ephemeral_1h_input_tokens: 6 });
    // wrapAnthropic's usage: 100 plain + 5 written + 30 read = 135 input
    const usage = { input_tokens: 135, output_tokens: 10, total_tokens: 145, input_token_details: { cache_read: 30, ephemeral_5m_input_tokens: 5 } };
    const r = computeCost(usage, "claude-sonnet-4-5-20250929", "anthropic", NOW, seed);
    if (!r.ok) throw new Error(r.reason);
    expect(r.cost.input_cost).toBeCloseTo((100 * 3 + 5 * 3.75 + 30 * 0.3) / 1e6, 12);
    expect(r.cost.output_cost).toBeCloseTo((10 * 15) / 1e6, 12);
    const pkg = calcPrice({ input_tokens: 135, cache_write_tokens: 5, cache_read_tokens: 30, output_tokens: 10 }, "claude-sonnet-4-5-20250929", { providerId: "anthropic", timestamp: NOW })!;
    expect(r.cost.total_cost).toBeCloseTo(pkg.total_price, 12);
  });

  it("emits one entry per effective date, each applying from its date", () => {
    expect(byId("default:openai:o3")).toMatchObject({ effective_from: null, input_per_million: 10, output_per_million: 40 });
    expect(byId("default:openai:o3@2025-06-10")).toMatchObject({ effective_from: "2025-06-10", input_per_million: 2, output_per_million: 8 });
    expect(idFor("o3", "openai", new Date("2025-05-01T00:00:00Z"))).toBe("default:openai:o3");
    expect(idFor("o3", "openai", new Date("2025-06-10T00:00:00Z"))).toBe("default:openai:o3@2025-06-10");
  });

  it("approximates time-of-day prices by the one in force most of the day, and keeps free models at $0", () => {
    // DeepSeek chat: 0.27 from 00:30 to 16:30 UTC (16 h), 0.135 otherwise
    expect(byId("default:deepseek:deepseek-chat")).toMatchObject({ input_per_million: 0.27, output_per_million: 1.1 });
    // GitHub Copilot: included in the subscription
    expect(byId("default:github-copilot:gpt-4o")).toMatchObject({ input_per_million: 0, output_per_million: 0 });
    // priced per audio hour only: no token price rather than a wrong one
    expect(byId("default:openai:whisper-1")).toBeUndefined();
  });

  it("converts every match-rule shape to a regex", () => {
    const test = (rule: Parameters<typeof matchToRegex>[0], name: string) => new RegExp(matchToRegex(rule), "i").test(name);
    expect(test({ equals: "gpt-4o" }, "gpt-4o")).toBe(true);
    expect(test({ equals: "gpt-4o" }, "gpt-4o-mini")).toBe(false);
    expect(test({ equals: "a.b" }, "axb")).toBe(false);
    expect(test({ starts_with: "claude-3" }, "claude-3-opus")).toBe(true);
    expect(test({ starts_with: "claude-3" }, "x-claude-3")).toBe(false);
    expect(test({ ends_with: "-tts" }, "gemini-tts")).toBe(true);
    expect(test({ ends_with: "-tts" }, "gemini-tts-2")).toBe(false);
    expect(test({ contains: "llama" }, "meta/llama-3")).toBe(true);
    expect(test({ regex: "^o[134]" }, "o3-mini")).toBe(true);
    expect(test({ or: [{ equals: "a" }, { starts_with: "b" }] }, "bz")).toBe(true);
    expect(test({ or: [{ equals: "a" }, { starts_with: "b" }] }, "ab")).toBe(false);
    const pro = { and: [{ starts_with: "gemini-2.5-pro" }, { regex: "^(?!.*-[tT][tT][sS](?:$|-))" }] };
    expect(test(pro, "gemini-2.5-pro")).toBe(true);
    expect(test(pro, "gemini-2.5-pro-preview-tts")).toBe(false);
    expect(test({ and: [{ contains: "b" }, { ends_with: "c" }] }, "abc")).toBe(true);
    expect(test({ and: [{ contains: "b" }, { ends_with: "c" }] }, "acb")).toBe(false);
    expect(() => matchToRegex({ nope: 1 } as never)).toThrow();
  });

  it("agrees with the package's own price calculation for every token-priced model", async () => {
    const providers = ((await waitForUpdate()) ?? []) as Provider[];
    let compared = 0;
    const disagreements: string[] = [];
    for (const at of [new Date("2025-01-15T12:00:00Z"), NOW]) {
      for (const provider of providers) {
        const own = seed.filter((p) => p.provider === provider.id);
        for (const model of provider.models) {
          const timeOfDay = Array.isArray(model.prices) && model.prices.some((c) => c.constraint?.type === "time_of_date");
          const pkg = calcPrice({ input_tokens: 1000, cache_read_tokens: 300, cache_write_tokens: 100, output_tokens: 100 }, model.id, { providerId: provider.id, timestamp: at });
          if (!pkg || pkg.provider.id !== provider.id || timeOfDay) continue;
          const tokenPriced = Object.keys(pkg.model_price).some((k) => k.endsWith("_mtok")) || Object.keys(pkg.model_price).length === 0;
          const mine = computeCost({ input_tokens: 1000, output_tokens: 100, total_tokens: 1100, input_token_details: { cache_read: 300, cache_creation: 100 } }, model.id, provider.id, at, own);
          if (!tokenPriced) {
            if (mine.ok) disagreements.push(`${provider.id}/${model.id}: priced though not per token`);
            continue;
          }
          compared++;
          const same = mine.ok && Math.abs(mine.cost.input_cost - pkg.input_price) < 1e-12 && Math.abs(mine.cost.output_cost - pkg.output_price) < 1e-12;
          if (!same) disagreements.push(`${provider.id}/${model.id} at ${at.toISOString()}: ${mine.ok ? `${mine.cost.input_cost}/${mine.cost.output_cost}` : mine.reason} vs ${pkg.input_price}/${pkg.output_price}`);
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(compared).toBeGreaterThan(2000);
  });

  it("maps run provider names to the package's providers as the package does", () => {
    for (const [alias, id] of Object.entries(PROVIDER_TABLES.aliases)) expect([alias, findProvider({ providerId: alias })?.id]).toEqual([alias, id]);
    const fallbacks = Object.fromEntries(packageProviders().filter((p) => p.fallbacks.length).map((p) => [p.id, p.fallbacks]));
    expect(PROVIDER_TABLES.fallbacks).toEqual(fallbacks);
    const ids = new Set(seed.map((p) => p.provider));
    for (const id of [...Object.values(PROVIDER_TABLES.aliases), ...Object.values(PROVIDER_TABLES.fallbacks).flat()]) expect(ids.has(id)).toBe(true);
  });

  it("looks prices up under provider aliases and fallbacks", () => {
    expect(priceProviders("google_genai")).toEqual(["google_genai", "google", "anthropic"]);
    expect(priceProviders("openai")).toEqual(["openai"]);
    expect(priceProviders(undefined)).toEqual([undefined]);
    // Azure lists no gpt-4o of its own: OpenAI's price applies
    const found = priceProviders("azure").map((p) => idFor("gpt-4o", p)).find(Boolean);
    expect(found).toBe("default:openai:gpt-4o");
  });

  it("hands out copies", () => {
    const a = defaultPrices();
    a[0]!.input_per_million = 12345;
    if (a[0]!.input_details_per_million) a[0]!.input_details_per_million.cache_read = 12345;
    expect(defaultPrices()[0]!.input_per_million).not.toBe(12345);
    expect(defaultPrices()[0]!.input_details_per_million?.cache_read).not.toBe(12345);
  });
});
