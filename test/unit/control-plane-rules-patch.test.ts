/** Control plane rules: PATCH planning (immutables, revision triggers, wholesale replacement, secret masking). */
import { describe, expect, it } from "vitest";
import {
  MASK,
  checkCreate,
  checkPatch,
  maskSecrets,
  planPatch,
  unmaskSecrets,
  type CheckResult,
  type DeploymentConfig,
  type PatchPlan,
} from "../../src/control-plane/rules/index.js";

const INTEGRATION = "6f1c1f7e-1b1a-4c1e-9a53-0a1b2c3d4e5f";
const OTHER_UUID = "11111111-2222-4333-8444-555555555555";
const LISTENER = "0b9f7e1c-2d3e-4f50-8a6b-7c8d9e0f1a2b";
const ASSIGNED_URL = "https://my-agent-1a2b.berth.local";

function created(body: unknown): DeploymentConfig {
  const r = checkCreate(body);
  if (!r.ok) throw new Error(JSON.stringify(r.error.toBody()));
  return r.value;
}

/** A stored hosted_git config, with the custom_url the control plane assigned. */
function gitConfig(): DeploymentConfig {
  const c = created({
    name: "my-agent",
    source: "hosted_git",
    source_config: { integration_id: INTEGRATION, repo_url: "https://github.com/acme/agent", deployment_type: "dev", build_on_push: true },
    source_revision_config: { repo_ref: "main", agent_config_path: "langgraph.json" },
    secrets: [{ name: "OPENAI_API_KEY", value: "sk-1" }, { name: "DB_PASSWORD", value: "hunter2" }],
  });
  c.source_config.custom_url = ASSIGNED_URL;
  return c;
}

function imageConfig(): DeploymentConfig {
  return created({
    name: "my-image",
    source: "external_container",
    source_config: {
      custom_url: "https://agent.example.com",
      listener_id: LISTENER,
      listener_config: { k8s_namespace: "agents" },
      resource_spec: { cpu: 2, memory_mb: 2048, labels: { team: "ml" } },
    },
    source_revision_config: { image_uri: "ghcr.io/acme/agent:1.0" },
    secrets: [{ name: "API_KEY", value: "secret" }],
  });
}

function plan(current: DeploymentConfig, body: unknown): PatchPlan {
  const r = checkPatch(current, body);
  if (!r.ok) throw new Error(`expected ok, got ${r.error.status} ${JSON.stringify(r.error.toBody())}`);
  return r.value;
}

function errorOf(r: CheckResult<unknown>): { status: number; body: unknown } {
  if (r.ok) throw new Error(`expected an error, got ok`);
  return { status: r.error.status, body: r.error.toBody() };
}

const noChange = (current: DeploymentConfig) => ({ next: current, createsRevision: false, revisionTriggers: [], revision: null, changedFields: [] });

describe("absent or null leaves things unchanged", () => {
  it("an empty patch changes nothing and creates no revision", () => {
    for (const current of [gitConfig(), imageConfig()]) expect(plan(current, {})).toEqual(noChange(current));
  });

  it("explicit nulls everywhere change nothing", () => {
    const current = imageConfig();
    const body = {
      name: null, source: null, secrets: null,
      source_config: { integration_id: null, repo_url: null, deployment_type: null, build_on_push: null, custom_url: null, resource_spec: null, listener_id: null, listener_config: null, install_command: null, build_command: null },
      source_revision_config: { repo_ref: null, agent_config_path: null, image_uri: null },
    };
    expect(plan(current, body)).toEqual(noChange(current));
    expect(plan(current, { source_config: null, source_revision_config: null, listener_config: { k8s_namespace: null } })).toEqual(noChange(current));
  });

  it("unknown fields (the CLI's revision_source, tracked_packages) are ignored", () => {
    const current = gitConfig();
    expect(plan(current, { revision_source: "internal_source", tracked_packages: ["a"] })).toEqual(noChange(current));
  });

  it("does not mutate the stored config", () => {
    const current = imageConfig();
    const copy = structuredClone(current);
    plan(current, { source_config: { resource_spec: { cpu: 4 }, custom_url: "https://new.example.com" }, secrets: [], source_revision_config: { image_uri: "x:2" } });
    expect(current).toEqual(copy);
  });

  it("accepts a stored config read back from JSON with keys missing", () => {
    const stored = { name: "my-image", source: "external_container", source_config: { listener_id: LISTENER }, source_revision_config: { image_uri: "x:1" }, secrets: [] } as unknown as DeploymentConfig;
    const p = plan(stored, { source_revision_config: { image_uri: "x:2" } });
    expect(p.next.source_config.custom_url).toBe(null);
    expect(p.next.source_revision_config).toEqual({ repo_ref: null, agent_config_path: null, image_uri: "x:2" });
  });
});

describe("revision triggers", () => {
  it("a non-null source_revision_config field creates a revision carrying the new values", () => {
    const current = imageConfig();
    const p = plan(current, { source_revision_config: { repo_ref: null, agent_config_path: null, image_uri: "ghcr.io/acme/agent:1.1" } });
    expect(p.createsRevision).toBe(true);
    expect(p.revisionTriggers).toEqual(["source_revision_config.image_uri"]);
    expect(p.changedFields).toEqual(["source_revision_config.image_uri"]);
    expect(p.revision).toEqual({
      source: "external_container",
      source_revision_config: { repo_ref: null, agent_config_path: null, image_uri: "ghcr.io/acme/agent:1.1" },
      secrets: current.secrets,
      resource_spec: current.source_config.resource_spec,
    });
  });

  it("re-sending the same image_uri still creates a revision (redeploying a moving tag), with nothing changed", () => {
    const p = plan(imageConfig(), { source_revision_config: { image_uri: "ghcr.io/acme/agent:1.0" } });
    expect(p.createsRevision).toBe(true);
    expect(p.changedFields).toEqual([]);
  });

  it("repo_ref and agent_config_path create revisions for hosted_git", () => {
    const p = plan(gitConfig(), { source_revision_config: { repo_ref: "develop", agent_config_path: "apps/a/langgraph.json" } });
    expect(p.revisionTriggers).toEqual(["source_revision_config.repo_ref", "source_revision_config.agent_config_path"]);
    expect(p.next.source_revision_config).toEqual({ repo_ref: "develop", agent_config_path: "apps/a/langgraph.json", image_uri: null });
  });

  it("secrets replace the stored list wholesale and create a revision; [] removes them all", () => {
    const current = gitConfig();
    const p = plan(current, { secrets: [{ name: "NEW", value: "n" }] });
    expect(p.next.secrets).toEqual([{ name: "NEW", value: "n" }]);
    expect(p.revisionTriggers).toEqual(["secrets"]);
    expect(p.revision!.secrets).toEqual([{ name: "NEW", value: "n" }]);
    expect(p.changedFields).toEqual(["secrets"]);
    const empty = plan(current, { secrets: [] });
    expect(empty.next.secrets).toEqual([]);
    expect(empty.createsRevision).toBe(true);
  });

  it("resource_spec replaces the stored spec wholesale and creates a revision", () => {
    const current = imageConfig();
    const p = plan(current, { source_config: { resource_spec: { max_scale: 3 } } });
    expect(p.next.source_config.resource_spec).toEqual({ max_scale: 3 });
    expect(p.revisionTriggers).toEqual(["source_config.resource_spec"]);
    expect(p.changedFields).toEqual(["source_config.resource_spec"]);
    expect(p.revision!.resource_spec).toEqual({ max_scale: 3 });
    // {} is a spec too: back to the defaults.
    expect(plan(current, { source_config: { resource_spec: {} } }).next.source_config.resource_spec).toEqual({});
  });

  it("other source_config fields apply without a revision", () => {
    const git = plan(gitConfig(), { source_config: { build_on_push: false, install_command: "pnpm i", build_command: "pnpm build" } });
    expect(git.createsRevision).toBe(false);
    expect(git.revision).toBe(null);
    expect(git.changedFields).toEqual(["source_config.build_on_push", "source_config.install_command", "source_config.build_command"]);
    const image = plan(imageConfig(), { source_config: { custom_url: "https://new.example.com" } });
    expect(image.createsRevision).toBe(false);
    expect(image.next.source_config.custom_url).toBe("https://new.example.com");
    expect(image.changedFields).toEqual(["source_config.custom_url"]);
  });
});

describe("immutable fields: 400 naming the field", () => {
  const msg = (field: string) => `'${field}' cannot be changed after the deployment is created`;

  it("a different value is refused; the same value is a no-op", () => {
    const git: [string, unknown, unknown][] = [
      ["name", { name: "other" }, { name: "my-agent" }],
      ["source", { source: "external_container" }, { source: "hosted_git" }],
      ["source_config.integration_id", { source_config: { integration_id: OTHER_UUID } }, { source_config: { integration_id: INTEGRATION } }],
      ["source_config.repo_url", { source_config: { repo_url: "https://github.com/acme/other" } }, { source_config: { repo_url: "https://github.com/acme/agent" } }],
      ["source_config.deployment_type", { source_config: { deployment_type: "prod" } }, { source_config: { deployment_type: "dev" } }],
    ];
    for (const [field, changed, same] of git) {
      expect(errorOf(checkPatch(gitConfig(), changed)), field).toEqual({ status: 400, body: { detail: msg(field) } });
      expect(plan(gitConfig(), same), field).toEqual(noChange(gitConfig()));
    }
    const image: [string, unknown, unknown][] = [
      ["source_config.listener_id", { source_config: { listener_id: OTHER_UUID } }, { source_config: { listener_id: LISTENER } }],
      ["source_config.listener_config.k8s_namespace", { source_config: { listener_config: { k8s_namespace: "prod" } } }, { source_config: { listener_config: { k8s_namespace: "agents" } } }],
    ];
    for (const [field, changed, same] of image) {
      expect(errorOf(checkPatch(imageConfig(), changed)), field).toEqual({ status: 400, body: { detail: msg(field) } });
      expect(plan(imageConfig(), same), field).toEqual(noChange(imageConfig()));
    }
  });

  it("setting an immutable field that was never set is a change too", () => {
    const current = imageConfig();
    current.source_config.listener_config = null;
    current.source_config.listener_id = null;
    expect(errorOf(checkPatch(current, { source_config: { listener_config: { k8s_namespace: "agents" } } }))).toEqual({
      status: 400,
      body: { detail: msg("source_config.listener_config.k8s_namespace") },
    });
    expect(errorOf(checkPatch(current, { source_config: { listener_id: LISTENER } })).status).toBe(400);
  });

  it("names every changed field in one message", () => {
    expect(errorOf(checkPatch(gitConfig(), { name: "x", source_config: { repo_url: "https://x.example.com/r", deployment_type: "prod" } }))).toEqual({
      status: 400,
      body: { detail: [msg("name"), msg("source_config.repo_url"), msg("source_config.deployment_type")].join("; ") },
    });
  });

  it("the other source's immutable fields are refused as not allowed for the source", () => {
    expect(errorOf(checkPatch(imageConfig(), { source_config: { integration_id: INTEGRATION } }))).toEqual({
      status: 400,
      body: { detail: "Source configuration error: 'source_config.integration_id' is not allowed for 'external_container' source" },
    });
    expect(errorOf(checkPatch(gitConfig(), { source_config: { listener_id: LISTENER } }))).toEqual({
      status: 400,
      body: { detail: "Source configuration error: 'source_config.listener_id' is not allowed for 'hosted_git' source" },
    });
  });
});

describe("the merged config must still pass the create rules", () => {
  it("switching repo_ref to a tag while build_on_push is true is refused", () => {
    expect(errorOf(checkPatch(gitConfig(), { source_revision_config: { repo_ref: "refs/tags/v2" } }))).toEqual({
      status: 400,
      body: { detail: "Source configuration error: 'source_config.build_on_push' must be false when 'source_revision_config.repo_ref' is a tag ('refs/tags/v2')" },
    });
    const p = plan(gitConfig(), { source_config: { build_on_push: false }, source_revision_config: { repo_ref: "refs/tags/v2" } });
    expect(p.next.source_config.build_on_push).toBe(false);
    expect(p.createsRevision).toBe(true);
  });

  it("turning build_on_push on while the stored ref is a tag is refused", () => {
    const current = plan(gitConfig(), { source_config: { build_on_push: false }, source_revision_config: { repo_ref: "refs/tags/v2" } }).next;
    expect(errorOf(checkPatch(current, { source_config: { build_on_push: true } })).status).toBe(400);
  });

  it("fields of the other source are refused", () => {
    expect(errorOf(checkPatch(gitConfig(), { source_revision_config: { image_uri: "x:1" } }))).toEqual({
      status: 400,
      body: { detail: "Source configuration error: 'source_revision_config.image_uri' is not allowed for 'hosted_git' source" },
    });
    expect(errorOf(checkPatch(gitConfig(), { source_config: { resource_spec: { cpu: 1 } } })).status).toBe(400);
    expect(errorOf(checkPatch(imageConfig(), { source_revision_config: { repo_ref: "main" } })).status).toBe(400);
    expect(errorOf(checkPatch(imageConfig(), { source_config: { build_on_push: true } })).status).toBe(400);
  });

  it("custom_url of hosted_git: sending back the assigned one is fine, another is refused", () => {
    expect(plan(gitConfig(), { source_config: { custom_url: ASSIGNED_URL } })).toEqual(noChange(gitConfig()));
    expect(errorOf(checkPatch(gitConfig(), { source_config: { custom_url: "https://mine.example.com" } }))).toEqual({
      status: 400,
      body: { detail: "Source configuration error: 'source_config.custom_url' is not allowed for 'hosted_git' source: it is assigned automatically" },
    });
  });
});

describe("422s in a patch", () => {
  it("schema failures name the field under body", () => {
    const e = errorOf(checkPatch(imageConfig(), { source_config: { resource_spec: { executor_cpu: 1 } } }));
    expect(e).toEqual({
      status: 422,
      body: { detail: [{ loc: ["body", "source_config", "resource_spec", "executor_cpu"], msg: "'executor_cpu' is reserved and must not be used", type: "invalid_type" }] },
    });
    expect((errorOf(checkPatch(imageConfig(), [])).body as any).detail[0].loc).toEqual(["body"]);
    expect((errorOf(checkPatch(imageConfig(), { name: "Bad Name" })).body as any).detail[0].loc).toEqual(["body", "name"]);
  });

  it("the new resource_spec passes the shape rules on its own", () => {
    const e = errorOf(checkPatch(imageConfig(), { source_config: { resource_spec: { volume_mounts: [{ name: "data", mountPath: "/d" }] } } }));
    expect(e).toEqual({
      status: 422,
      body: { detail: [{ loc: ["body", "source_config", "resource_spec", "volume_mounts", 0, "name"], msg: "no volume named 'data' in 'volumes'", type: "value_error" }] },
    });
  });

  it("duplicate secret names are refused", () => {
    const e = errorOf(checkPatch(gitConfig(), { secrets: [{ name: "A", value: "1" }, { name: "A", value: "2" }] }));
    expect((e.body as any).detail[0].loc).toEqual(["body", "secrets", 1, "name"]);
  });

  it("422s come before the 400s of immutable fields", () => {
    expect(errorOf(checkPatch(gitConfig(), { name: "other", secrets: [{ name: "A", value: "1" }, { name: "A", value: "2" }] })).status).toBe(422);
  });
});

describe("secret masking", () => {
  it("maskSecrets hides every value behind one placeholder", () => {
    expect(MASK).toBe("********");
    expect(maskSecrets([{ name: "A", value: "1" }, { name: "B", value: "" }])).toEqual([{ name: "A", value: MASK }, { name: "B", value: MASK }]);
  });

  it("a masked value sent back keeps the stored value; others replace; missing names are dropped", () => {
    const p = plan(gitConfig(), { secrets: [{ name: "OPENAI_API_KEY", value: MASK }, { name: "NEW", value: "n" }] });
    expect(p.next.secrets).toEqual([{ name: "OPENAI_API_KEY", value: "sk-1" }, { name: "NEW", value: "n" }]);
    expect(p.changedFields).toEqual(["secrets"]);
    expect(p.createsRevision).toBe(true);
  });

  it("sending back every masked value unchanged keeps the secrets (but still makes a revision, as secrets is non-null)", () => {
    const current = gitConfig();
    const p = plan(current, { secrets: maskSecrets(current.secrets) });
    expect(p.next.secrets).toEqual(current.secrets);
    expect(p.changedFields).toEqual([]);
    expect(p.createsRevision).toBe(true);
  });

  it("a masked value for a name with no stored secret is a 422 on that value", () => {
    const e = errorOf(checkPatch(gitConfig(), { secrets: [{ name: "OPENAI_API_KEY", value: MASK }, { name: "UNKNOWN", value: MASK }] }));
    expect(e.status).toBe(422);
    expect((e.body as any).detail).toEqual([
      { loc: ["body", "secrets", 1, "value"], msg: expect.stringContaining("masked value of 'UNKNOWN'"), type: "value_error" },
    ]);
  });

  it("unmaskSecrets is pure and reports unresolved indexes", () => {
    const stored = [{ name: "A", value: "a" }];
    expect(unmaskSecrets(stored, [{ name: "A", value: MASK }, { name: "B", value: MASK }, { name: "C", value: "c" }])).toEqual({
      secrets: [{ name: "A", value: "a" }, { name: "B", value: MASK }, { name: "C", value: "c" }],
      unresolved: [1],
    });
    expect(stored).toEqual([{ name: "A", value: "a" }]);
  });
});

describe("GET, edit, PATCH round trip", () => {
  it("sending back a whole response (masked secrets, assigned url, repo_commit_sha) keeps the config", () => {
    const current = gitConfig();
    const response = {
      ...current,
      id: "a0000000-0000-4000-8000-000000000000",
      status: "READY",
      secrets: maskSecrets(current.secrets),
      source_revision_config: { ...current.source_revision_config, repo_commit_sha: "0123abc" },
    };
    const p = plan(current, response);
    expect(p.next).toEqual(current);
    expect(p.changedFields).toEqual([]);
    expect(p.createsRevision).toBe(true);
  });

  it("a round trip of an external_container response with an edited image changes only the image", () => {
    const current = imageConfig();
    const response = structuredClone({ ...current, secrets: maskSecrets(current.secrets) });
    response.source_revision_config.image_uri = "ghcr.io/acme/agent:2.0";
    const p = plan(current, response);
    expect(p.changedFields).toEqual(["source_revision_config.image_uri"]);
    expect(p.next.secrets).toEqual(current.secrets);
  });
});

describe("planPatch directly", () => {
  it("throws the ApiError subclasses the HTTP layer renders", () => {
    expect(() => planPatch(gitConfig(), { name: "x" })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => planPatch(gitConfig(), { secrets: [{ name: "Z", value: MASK }] })).toThrow(expect.objectContaining({ status: 422 }));
  });
});
