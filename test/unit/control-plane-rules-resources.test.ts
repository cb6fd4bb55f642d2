/** Control plane rules: the effective resource spec (spec §2.6, §8), the one place for defaults. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  RESOURCE_DEFAULTS,
  RESOURCE_PAIRS,
  effectiveResourceSpec,
  resourceSpecIssues,
  type ResourceSpec,
} from "../../src/control-plane/rules/index.js";

describe("effectiveResourceSpec", () => {
  it("with no spec: the dev base values, limits 2x, queue values equal to the main ones, empty lists", () => {
    expect(effectiveResourceSpec(null)).toEqual({
      min_scale: 1, max_scale: 1, cpu: 1, cpu_limit: 2, memory_mb: 1024, memory_limit_mb: 2048,
      queue_min_scale: 1, queue_max_scale: 1, queue_cpu: 1, queue_cpu_limit: 2, queue_memory_mb: 1024, queue_memory_limit_mb: 2048,
      kvstore_memory_mb: 256, db_cpu: 0.5, db_cpu_limit: 1, db_memory_mb: 512, db_memory_limit_mb: 1024, db_storage_gi: 10, db_max_connections: 100,
      labels: {}, annotations: {}, service_account_name: null, image_pull_secrets: [], volumes: [], volume_mounts: [], init_containers: [], sidecars: [],
    });
    expect(effectiveResourceSpec(undefined)).toEqual(effectiveResourceSpec({}));
  });

  it("base values follow the deployment type: prod is 2 CPU, 2 GB, up to 10 replicas; dev_free is dev", () => {
    const prod = effectiveResourceSpec(null, "prod");
    expect(prod).toMatchObject({ min_scale: 1, max_scale: 10, cpu: 2, cpu_limit: 4, memory_mb: 2048, memory_limit_mb: 4096, queue_max_scale: 10, queue_cpu: 2 });
    expect(effectiveResourceSpec(null, "dev_free")).toEqual(effectiveResourceSpec(null, "dev"));
    expect(effectiveResourceSpec(null, "dev")).toEqual(effectiveResourceSpec(null, null));
    expect(RESOURCE_DEFAULTS.dev).toMatchObject({ cpu: 1, memory_mb: 1024, max_scale: 1 });
  });

  it("each limit defaults to 2x its request", () => {
    const e = effectiveResourceSpec({ cpu: 3, memory_mb: 700, queue_cpu: 5, queue_memory_mb: 300, db_cpu: 0.3, db_memory_mb: 2000 });
    expect(e).toMatchObject({ cpu_limit: 6, memory_limit_mb: 1400, queue_cpu_limit: 10, queue_memory_limit_mb: 600, db_cpu_limit: 0.6, db_memory_limit_mb: 4000 });
  });

  it("queue scale, cpu and memory default to the effective non-queue values; queue limits to 2x the queue request", () => {
    const e = effectiveResourceSpec({ min_scale: 2, max_scale: 6, cpu: 4, cpu_limit: 5, memory_mb: 512 });
    expect(e).toMatchObject({ queue_min_scale: 2, queue_max_scale: 6, queue_cpu: 4, queue_cpu_limit: 8, queue_memory_mb: 512, queue_memory_limit_mb: 1024 });
    // Derived from defaults too.
    expect(effectiveResourceSpec({}, "prod")).toMatchObject({ queue_min_scale: 1, queue_max_scale: 10, queue_cpu: 2, queue_memory_mb: 2048 });
  });

  it("keeps every user value untouched, including ones that look odd", () => {
    const spec: ResourceSpec = {
      min_scale: 0, max_scale: 1, cpu: 1, cpu_limit: 7, memory_mb: 100, memory_limit_mb: 100,
      queue_min_scale: 0, queue_max_scale: 3, queue_cpu: 2, queue_cpu_limit: 2, queue_memory_mb: 64, queue_memory_limit_mb: 65,
      kvstore_memory_mb: 64, db_cpu: 0.1, db_cpu_limit: 0.1, db_memory_mb: 128, db_memory_limit_mb: 129, db_storage_gi: 1, db_max_connections: 5,
      labels: { a: "b" }, annotations: { c: "d" }, service_account_name: "sa", image_pull_secrets: [{ name: "reg" }],
      volumes: [{ name: "v", emptyDir: {} }], volume_mounts: [{ name: "v", mountPath: "/v" }],
      init_containers: [{ name: "i", image: "x" }], sidecars: [{ name: "s", image: "y" }],
    };
    const copy = structuredClone(spec);
    expect(effectiveResourceSpec(spec)).toEqual(spec);
    expect(spec).toEqual(copy);
  });

  it("drops the reserved fields", () => {
    const e = effectiveResourceSpec({ orchestrator_cpu: null, executor_memory_mb: null });
    expect(e).not.toHaveProperty("orchestrator_cpu");
    expect(e).not.toHaveProperty("executor_memory_mb");
  });

  it("a defaulted request is capped at an explicit limit (as Kubernetes does)", () => {
    expect(effectiveResourceSpec({ memory_limit_mb: 512 })).toMatchObject({ memory_mb: 512, memory_limit_mb: 512 });
    expect(effectiveResourceSpec({ cpu: 4, queue_cpu_limit: 2 })).toMatchObject({ queue_cpu: 2, queue_cpu_limit: 2 });
    expect(effectiveResourceSpec({ db_cpu_limit: 0.2 })).toMatchObject({ db_cpu: 0.2, db_cpu_limit: 0.2 });
    // A generous explicit limit does not raise the request.
    expect(effectiveResourceSpec({ cpu_limit: 16 })).toMatchObject({ cpu: 1, cpu_limit: 16 });
  });

  it("a defaulted upper bound is raised to an explicit lower bound", () => {
    expect(effectiveResourceSpec({ min_scale: 3 })).toMatchObject({ min_scale: 3, max_scale: 3, queue_min_scale: 3, queue_max_scale: 3 });
    expect(effectiveResourceSpec({ queue_min_scale: 4 })).toMatchObject({ queue_min_scale: 4, queue_max_scale: 4, max_scale: 1 });
    expect(effectiveResourceSpec({ queue_max_scale: 1 }, "prod")).toMatchObject({ queue_min_scale: 1, queue_max_scale: 1 });
    expect(effectiveResourceSpec({ max_scale: 2, min_scale: 0 })).toMatchObject({ queue_min_scale: 0, queue_max_scale: 2 });
  });
});

/** Specs whose explicit pairs are ordered (what validation lets through); each field possibly unset. */
const num = (min: number, max: number) => fc.option(fc.integer({ min, max }), { nil: undefined });
const validNumbers = fc
  .record({
    min_scale: num(0, 20), max_scale: num(1, 20), cpu: num(1, 16), cpu_limit: num(1, 32), memory_mb: num(1, 65536), memory_limit_mb: num(1, 131072),
    queue_min_scale: num(0, 20), queue_max_scale: num(1, 20), queue_cpu: num(1, 16), queue_cpu_limit: num(1, 32),
    queue_memory_mb: num(1, 65536), queue_memory_limit_mb: num(1, 131072),
    db_cpu: fc.option(fc.double({ min: 0.01, max: 16, noNaN: true }), { nil: undefined }),
    db_cpu_limit: fc.option(fc.double({ min: 0.01, max: 32, noNaN: true }), { nil: undefined }),
    db_memory_mb: num(1, 65536), db_memory_limit_mb: num(1, 131072), kvstore_memory_mb: num(1, 4096),
  })
  .map((spec) => {
    const s: Record<string, number | undefined> = { ...spec };
    for (const [low, high] of RESOURCE_PAIRS) {
      const l = s[low];
      const h = s[high];
      if (l !== undefined && h !== undefined && l > h) [s[low], s[high]] = [h, l];
    }
    return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as ResourceSpec;
  });
const deploymentType = fc.constantFrom("dev_free", "dev", "prod", null, undefined);

describe("effectiveResourceSpec properties", () => {
  it("a spec that passes validation always yields ordered pairs, and user values are kept", () => {
    fc.assert(
      fc.property(validNumbers, deploymentType, (spec, type) => {
        expect(resourceSpecIssues(spec, [])).toEqual([]);
        const e = effectiveResourceSpec(spec, type);
        for (const [low, high] of RESOURCE_PAIRS) expect(e[low]).toBeLessThanOrEqual(e[high]);
        for (const [key, value] of Object.entries(spec)) expect(e[key as keyof typeof e]).toBe(value);
        for (const value of Object.values(e)) if (typeof value === "number") expect(Number.isFinite(value) && value >= 0).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("is idempotent: the effective spec is its own effective spec", () => {
    fc.assert(
      fc.property(validNumbers, deploymentType, (spec, type) => {
        const e = effectiveResourceSpec(spec, type);
        expect(effectiveResourceSpec(e as ResourceSpec, type === "prod" ? "dev" : "prod")).toEqual(e);
      }),
      { numRuns: 300 },
    );
  });

  it("an unset limit is exactly twice its effective request", () => {
    fc.assert(
      fc.property(validNumbers, deploymentType, (spec, type) => {
        const e = effectiveResourceSpec(spec, type);
        for (const [req, lim] of [["cpu", "cpu_limit"], ["memory_mb", "memory_limit_mb"], ["queue_cpu", "queue_cpu_limit"], ["queue_memory_mb", "queue_memory_limit_mb"], ["db_cpu", "db_cpu_limit"], ["db_memory_mb", "db_memory_limit_mb"]] as const) {
          if (spec[lim] == null) expect(e[lim]).toBe(2 * e[req]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
