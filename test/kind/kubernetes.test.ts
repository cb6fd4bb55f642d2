/**
 * The end-to-end scenario of test/operator/e2e.test.ts on a real cluster: `make e2e-kind` creates a
 * kind cluster, builds the image and an agent image (examples/ in /deps), installs charts/berth and
 * runs this file with BERTH_KIND_* set (see scripts/e2e-kind.sh). Real pods: the control plane, two
 * operator replicas, and per deployment Postgres, Redis, the API server and the queue workers.
 *
 * Control-plane REST calls through `kubectl port-forward`; the agent's own API checked the same way.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this through \`make e2e-kind\``);
  return v;
};

const KUBECONFIG = env("BERTH_KIND_KUBECONFIG");
const KUBECTL = env("BERTH_KIND_KUBECTL");
const RELEASE_NS = env("BERTH_KIND_NAMESPACE");
const AGENT_IMAGE = env("BERTH_KIND_AGENT_IMAGE");
const AGENTS_NS = "agents";

function kubectl(...args: string[]): string {
  const r = spawnSync(KUBECTL, ["--kubeconfig", KUBECONFIG, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** `kubectl port-forward` to a Service on a free local port; resolves with the local URL. */
async function portForward(namespace: string, service: string, port: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(KUBECTL, ["--kubeconfig", KUBECONFIG, "-n", namespace, "port-forward", `svc/${service}`, `0:${port}`], { stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`port-forward to ${service} did not start`)), 60_000);
    child.stdout!.on("data", (b: Buffer) => {
      const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(b.toString());
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
    child.once("exit", (code) => reject(new Error(`port-forward exited with ${code}`)));
  });
  return { url, child };
}

async function until<T>(what: string, fn: () => Promise<T | false | undefined>, timeoutMs = 600_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

describe("Berth on a kind cluster", () => {
  let cp: { url: string; child: ChildProcess };
  let key: string;
  const forwards: ChildProcess[] = [];

  beforeAll(async () => {
    key = Buffer.from(kubectl("-n", RELEASE_NS, "get", "secret", "berth-control-plane", "-o", "jsonpath={.data.api-key}"), "base64").toString();
    spawnSync(KUBECTL, ["--kubeconfig", KUBECONFIG, "create", "namespace", AGENTS_NS]);
    cp = await portForward(RELEASE_NS, "berth-control-plane", 8080);
    forwards.push(cp.child);
  });

  afterAll(() => {
    for (const f of forwards) f.kill();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cp.url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const deployed = (d: string, r: string) =>
    until(`revision ${r} DEPLOYED`, async () => {
      const rev = (await api("GET", `/v2/deployments/${d}/revisions/${r}`)).body;
      if (["BUILD_FAILED", "DEPLOY_FAILED"].includes(rev.status)) throw new Error(`revision ${rev.status}: ${JSON.stringify(rev)}`);
      return rev.status === "DEPLOYED" && rev;
    });

  it("deploys the example agents, serves them, rolls out a new revision and cleans up", async () => {
    const listener = await api("POST", "/v2/listeners", { compute_type: "k8s", compute_id: "kind", compute_config: { k8s_namespaces: [AGENTS_NS] } });
    expect(listener.status).toBe(201);
    const created = await api("POST", "/v2/deployments", {
      name: "e2e-agent",
      source: "external_container",
      source_config: { listener_id: listener.body.id, listener_config: { k8s_namespace: AGENTS_NS }, resource_spec: { cpu: 0.25, memory_mb: 512, db_storage_gi: 1 } },
      source_revision_config: { image_uri: AGENT_IMAGE },
      secrets: [{ name: "GREETING", value: "hello" }],
    });
    expect(created.status).toBe(201);
    const d = created.body;
    await deployed(d.id, d.latest_revision_id);
    expect(kubectl("-n", AGENTS_NS, "get", "ad", "e2e-agent", "-o", "jsonpath={.status.latestReadyRevision}")).toBe(d.latest_revision_id);

    // the agent server answers through its Service
    const agent = await portForward(AGENTS_NS, "e2e-agent-api", 8000);
    forwards.push(agent.child);
    expect((await fetch(`${agent.url}/ok`)).status).toBe(200);
    const assistants = (await (await fetch(`${agent.url}/assistants/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as unknown[];
    expect(assistants.length).toBeGreaterThan(0);
    agent.child.kill();

    const patched = await api("PATCH", `/v2/deployments/${d.id}`, { secrets: [{ name: "GREETING", value: "hi" }] });
    expect(patched.status).toBe(200);
    await deployed(d.id, patched.body.latest_revision_id);

    expect((await api("DELETE", `/v2/deployments/${d.id}`)).status).toBe(204);
    await until("the deployment to be gone", async () => (await api("GET", `/v2/deployments/${d.id}`)).status === 404);
    expect(kubectl("-n", AGENTS_NS, "get", "ad,statefulsets,deployments,pvc", "-o", "name").trim()).toBe("");
  });
});
