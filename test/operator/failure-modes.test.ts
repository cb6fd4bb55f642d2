/**
 * The operator when lists keep failing, on the fake API server (fault injection makes the failures exact; the same
 * behaviour against the real authorizer's 403s is in real-apiserver.test.ts):
 *  - the informer's retry delay grows (with jitter, up to its cap) instead of staying at its minimum;
 *  - close() returns although the controller's caches never sync;
 *  - /readyz names the kind that cannot be listed and why.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Informer, KubeRest, jittered, nextBase } from "../../src/operator/kube/index.js";
import { silentLogger } from "../../src/shared/logging.js";
import { eventually, startFakeApiServer, type FakeApiServer } from "../fake-apiserver/index.js";
import { startTestOperator } from "../helpers/operator.js";

describe("operator failure modes", () => {
  let fake: FakeApiServer;
  beforeEach(async () => {
    fake = await startFakeApiServer();
  });
  afterEach(async () => {
    await fake.close();
  });

  it("backoff rule: doubles to the cap, jitter stays within ±20% and the bounds", () => {
    const p = { min: 100, max: 1000 };
    expect([100, 200, 400, 800].map((b) => nextBase(b, p))).toEqual([200, 400, 800, 1000]);
    expect(jittered(400, p, 0)).toBe(320);
    expect(jittered(400, p, 0.999999)).toBe(480);
    expect(jittered(1000, p, 0.999999)).toBe(1000);
    expect(jittered(100, p, 0)).toBe(100);
  });

  it("grows the informer's retry delay while every list fails, until a list succeeds", async () => {
    fake.failNext({ verb: "list", resource: "deployments" }, 403, 8);
    const rest = new KubeRest(fake.kubeConfig());
    const delays: number[] = [];
    const backoff = { min: 20, max: 320 };
    const inf = new Informer(fake.kubeConfig(), rest, { apiVersion: "apps/v1", kind: "Deployment", logger: silentLogger, backoff, onRestart: (ms) => delays.push(ms) });
    inf.start();
    try {
      await inf.synced();
      expect(delays).toHaveLength(8);
      for (let i = 1; i < 4; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1]!);
      expect(Math.max(...delays)).toBeGreaterThanOrEqual(backoff.max * 0.8);
      for (const d of delays) expect(d).toBeLessThanOrEqual(backoff.max);
      expect(inf.lastError).toBeUndefined();
    } finally {
      await inf.stop();
      rest.close();
    }
  });

  it("names a forbidden list on /readyz and still closes although its caches never sync", async () => {
    fake.failNext({ verb: "list", resource: "agentdeployments" }, 403, 1_000_000);
    const op = await startTestOperator(fake.kubeConfig(), { namespaces: ["agents"] }, { discoveryMs: 0 });
    const body = await eventually(async () => {
      const res = await fetch(`${op.url}/readyz`);
      const text = await res.text();
      return res.status === 503 && /403/.test(text) && text;
    }, 30_000);
    expect(body).toMatch(/berth\.dev\/v1alpha1\/AgentDeployment: .*403/);
    await op.close();
    expect(op.controller).toBeUndefined();
  });
});
