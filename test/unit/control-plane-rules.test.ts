/** Control plane rules: create validation (schema 422s, shape 422s, source 400s), queries, listeners, OpenAPI. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiRouter } from "../../src/shared/http.js";
import {
  MASK,
  RESERVED_RESOURCE_FIELDS,
  checkCreate,
  checkListenerCreate,
  checkListenerPatch,
  deploymentCreateRequestSchema,
  deploymentListQuerySchema,
  deploymentPatchRequestSchema,
  logsQuerySchema,
  revisionListQuerySchema,
  targetNamespace,
  validateListenerPlacement,
  type CheckResult,
} from "../../src/control-plane/rules/index.js";
import * as rules from "../../src/control-plane/rules/index.js";

const INTEGRATION = "6f1c1f7e-1b1a-4c1e-9a53-0a1b2c3d4e5f";
const LISTENER = "0b9f7e1c-2d3e-4f50-8a6b-7c8d9e0f1a2b";

function hostedGit(): any {
  return {
    name: "my-agent",
    source: "hosted_git",
    source_config: { integration_id: INTEGRATION, repo_url: "https://github.com/acme/agent", deployment_type: "dev", build_on_push: true },
    source_revision_config: { repo_ref: "main", agent_config_path: "langgraph.json" },
    secrets: [{ name: "OPENAI_API_KEY", value: "sk-1" }],
  };
}

function external(): any {
  return {
    name: "my-image",
    source: "external_container",
    source_config: { custom_url: "https://agent.example.com", listener_id: LISTENER, listener_config: { k8s_namespace: "agents" } },
    source_revision_config: { image_uri: "ghcr.io/acme/agent:1.0" },
    secrets: [],
  };
}

function withSpec(spec: Record<string, unknown>): any {
  const body = external();
  body.source_config.resource_spec = spec;
  return body;
}

function errorOf(r: CheckResult<unknown>): { status: number; body: unknown } {
  if (r.ok) throw new Error(`expected an error, got ok: ${JSON.stringify(r.value)}`);
  return { status: r.error.status, body: r.error.toBody() };
}

function expect400(r: CheckResult<unknown>, detail: string): void {
  expect(errorOf(r)).toEqual({ status: 400, body: { detail } });
}

/** A 422 with (at least) one item at `loc`, whose msg contains `msg` when given. */
function expect422(r: CheckResult<unknown>, loc: (string | number)[], msg?: string): void {
  const { status, body } = errorOf(r);
  expect(status).toBe(422);
  const detail = (body as { detail: { loc: unknown[]; msg: string; type: string }[] }).detail;
  const hit = detail.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(hit, `no issue at ${JSON.stringify(loc)} in ${JSON.stringify(detail)}`).toBeDefined();
  expect(typeof hit!.type).toBe("string");
  if (msg) expect(hit!.msg).toContain(msg);
}

const RS = ["body", "source_config", "resource_spec"];

describe("valid bodies", () => {
  it("accepts a hosted_git body and normalizes every nullable field to null", () => {
    const r = checkCreate(hostedGit());
    expect(r).toEqual({
      ok: true,
      value: {
        name: "my-agent",
        source: "hosted_git",
        source_config: {
          integration_id: INTEGRATION, repo_url: "https://github.com/acme/agent", deployment_type: "dev", build_on_push: true,
          custom_url: null, resource_spec: null, listener_id: null, listener_config: null, install_command: null, build_command: null,
        },
        source_revision_config: { repo_ref: "main", agent_config_path: "langgraph.json", image_uri: null },
        secrets: [{ name: "OPENAI_API_KEY", value: "sk-1" }],
      },
    });
  });

  it("accepts an external_container body", () => {
    const r = checkCreate(external());
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.source_config.listener_config).toEqual({ k8s_namespace: "agents" });
  });

  it("accepts explicit nulls for the other source's fields (what CI scripts send)", () => {
    const body = {
      name: "text2sql-agent-pr-12",
      source: "external_container",
      source_config: { integration_id: null, repo_url: null, deployment_type: null, build_on_push: null, custom_url: null, resource_spec: null },
      source_revision_config: { repo_ref: null, agent_config_path: null, image_uri: "docker.io/acme/agent:pr-12" },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk" }],
    };
    expect(checkCreate(body).ok).toBe(true);
  });

  it("ignores unknown fields at every level, including the response-only repo_commit_sha", () => {
    const body = hostedGit();
    body.revision_source = "internal_source";
    body.tracked_packages = ["x"];
    body.source_config.something_new = 1;
    body.source_revision_config.repo_commit_sha = "abc123";
    body.secrets[0].note = "x";
    const r = checkCreate(body);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).not.toHaveProperty("revision_source");
    expect(r.value.source_config).not.toHaveProperty("something_new");
    expect(r.value.source_revision_config).not.toHaveProperty("repo_commit_sha");
    expect(r.value.secrets[0]).toEqual({ name: "OPENAI_API_KEY", value: "sk-1" });
  });

  it("treats listener_config {k8s_namespace: null} as no listener_config", () => {
    const body = hostedGit();
    body.source_config.listener_config = { k8s_namespace: null };
    const r = checkCreate(body);
    expect(r.ok && r.value.source_config.listener_config).toBe(null);
  });
});

describe("schema: 422 with loc starting at body", () => {
  it("requires the five top-level fields, secrets included (send [] for none)", () => {
    for (const field of ["name", "source", "source_config", "source_revision_config", "secrets"]) {
      const body = hostedGit();
      delete body[field];
      expect422(checkCreate(body), ["body", field]);
    }
  });

  it("rejects a body that is not an object at loc ['body']", () => {
    for (const body of [null, [], "x", 1, true, undefined]) expect422(checkCreate(body), ["body"]);
  });

  it("deployment names: lowercase letters, digits and hyphens, starting with a letter, at most 63", () => {
    for (const name of ["a", "my-agent", "agent-2", "a1-b2-c3", "a--b", "a".repeat(63)]) {
      const body = hostedGit();
      body.name = name;
      expect(checkCreate(body).ok, name).toBe(true);
    }
    for (const name of ["", "My-agent", "1agent", "-agent", "agent-", "my_agent", "my.agent", "agent!", "a".repeat(64), "ägent"]) {
      const body = hostedGit();
      body.name = name;
      expect422(checkCreate(body), ["body", "name"]);
    }
  });

  it("rejects unknown enum values for source, deployment_type", () => {
    const a = hostedGit();
    a.source = "github";
    expect422(checkCreate(a), ["body", "source"]);
    const b = hostedGit();
    b.source_config.deployment_type = "serverless";
    expect422(checkCreate(b), ["body", "source_config", "deployment_type"]);
  });

  it("secret names are env var names; values are strings", () => {
    for (const name of ["A", "_x", "OPENAI_API_KEY", "a1"]) {
      const body = hostedGit();
      body.secrets = [{ name, value: "v" }];
      expect(checkCreate(body).ok, name).toBe(true);
    }
    for (const name of ["", "1A", "A-B", "A B", "A.B", "é"]) {
      const body = hostedGit();
      body.secrets = [{ name, value: "v" }];
      expect422(checkCreate(body), ["body", "secrets", 0, "name"], "environment variable name");
    }
    const body = hostedGit();
    body.secrets = [{ name: "A", value: 1 }];
    expect422(checkCreate(body), ["body", "secrets", 0, "value"]);
    body.secrets = [{ name: "A" }];
    expect422(checkCreate(body), ["body", "secrets", 0, "value"]);
  });

  it("ids are UUIDs, custom_url an http(s) URL", () => {
    const a = hostedGit();
    a.source_config.integration_id = "not-a-uuid";
    expect422(checkCreate(a), ["body", "source_config", "integration_id"], "UUID");
    const b = external();
    b.source_config.listener_id = "123";
    expect422(checkCreate(b), ["body", "source_config", "listener_id"], "UUID");
    for (const url of ["ftp://x.example.com", "not a url", ""]) {
      const c = external();
      c.source_config.custom_url = url;
      expect422(checkCreate(c), ["body", "source_config", "custom_url"]);
    }
  });

  it("agent_config_path stays inside the repository; refs and image URIs have no whitespace", () => {
    for (const path of ["/etc/langgraph.json", "../langgraph.json", "a/../../b.json", "C:\\x.json", ""]) {
      const body = hostedGit();
      body.source_revision_config.agent_config_path = path;
      expect422(checkCreate(body), ["body", "source_revision_config", "agent_config_path"]);
    }
    for (const path of ["langgraph.json", "./langgraph.json", "apps/agent/langgraph.json", "a..b/c.json"]) {
      const body = hostedGit();
      body.source_revision_config.agent_config_path = path;
      expect(checkCreate(body).ok, path).toBe(true);
    }
    const a = hostedGit();
    a.source_revision_config.repo_ref = "my branch";
    expect422(checkCreate(a), ["body", "source_revision_config", "repo_ref"]);
    const b = external();
    b.source_revision_config.image_uri = "acme/agent: 1";
    expect422(checkCreate(b), ["body", "source_revision_config", "image_uri"]);
  });

  it("every reserved orchestrator_*/executor_* field is a 422 naming it; null is accepted", () => {
    expect(RESERVED_RESOURCE_FIELDS).toHaveLength(10);
    for (const field of RESERVED_RESOURCE_FIELDS) {
      expect422(checkCreate(withSpec({ [field]: 1 })), [...RS, field], `'${field}' is reserved and must not be used`);
      expect422(checkCreate(withSpec({ [field]: "x" })), [...RS, field], "reserved");
      expect(checkCreate(withSpec({ [field]: null })).ok, field).toBe(true);
    }
  });

  it("resource numbers: integers except db_cpu; scales >= 0 / >= 1; sizes > 0", () => {
    expect(checkCreate(withSpec({ min_scale: 0, max_scale: 1, cpu: 1, memory_mb: 256, db_cpu: 0.25, db_cpu_limit: 0.5 })).ok).toBe(true);
    expect422(checkCreate(withSpec({ cpu: 1.5 })), [...RS, "cpu"]);
    expect422(checkCreate(withSpec({ cpu: 0 })), [...RS, "cpu"]);
    expect422(checkCreate(withSpec({ memory_mb: "1024" })), [...RS, "memory_mb"]);
    expect422(checkCreate(withSpec({ min_scale: -1 })), [...RS, "min_scale"]);
    expect422(checkCreate(withSpec({ max_scale: 0 })), [...RS, "max_scale"]);
    expect422(checkCreate(withSpec({ db_cpu: 0 })), [...RS, "db_cpu"]);
    expect422(checkCreate(withSpec({ db_storage_gi: 2.5 })), [...RS, "db_storage_gi"]);
  });

  it("k8s names: volumes and containers are DNS labels, pull secrets and service accounts DNS subdomains", () => {
    expect422(checkCreate(withSpec({ volumes: [{ name: "Data" }] })), [...RS, "volumes", 0, "name"], "DNS label");
    expect422(checkCreate(withSpec({ sidecars: [{ name: "side_car", image: "x" }] })), [...RS, "sidecars", 0, "name"], "DNS label");
    expect422(checkCreate(withSpec({ init_containers: [{ name: "a".repeat(64), image: "x" }] })), [...RS, "init_containers", 0, "name"]);
    expect422(checkCreate(withSpec({ image_pull_secrets: [{ name: "Reg" }] })), [...RS, "image_pull_secrets", 0, "name"]);
    expect422(checkCreate(withSpec({ image_pull_secrets: [{}] })), [...RS, "image_pull_secrets", 0, "name"]);
    expect(checkCreate(withSpec({ image_pull_secrets: [{ name: "reg.cred-1" }], service_account_name: "agent.sa" })).ok).toBe(true);
    expect422(checkCreate(withSpec({ service_account_name: "Agent" })), [...RS, "service_account_name"]);
    const ns = external();
    ns.source_config.listener_config = { k8s_namespace: "Agents" };
    expect422(checkCreate(ns), ["body", "source_config", "listener_config", "k8s_namespace"]);
  });

  it("containers: image required, enums for imagePullPolicy and restartPolicy, env names are C identifiers", () => {
    expect422(checkCreate(withSpec({ sidecars: [{ name: "s" }] })), [...RS, "sidecars", 0, "image"]);
    expect422(checkCreate(withSpec({ sidecars: [{ name: "s", image: "x", imagePullPolicy: "Sometimes" }] })), [...RS, "sidecars", 0, "imagePullPolicy"]);
    expect422(checkCreate(withSpec({ sidecars: [{ name: "s", image: "x", restartPolicy: "Never" }] })), [...RS, "sidecars", 0, "restartPolicy"]);
    expect422(checkCreate(withSpec({ sidecars: [{ name: "s", image: "x", env: [{ name: "1X" }] }] })), [...RS, "sidecars", 0, "env", 0, "name"]);
    expect422(checkCreate(withSpec({ sidecars: [{ name: "s", image: "x", resources: { limits: { cpu: 1 } } }] })), [...RS, "sidecars", 0, "resources", "limits", "cpu"]);
    const full = {
      name: "s", image: "busybox:1", imagePullPolicy: "IfNotPresent", command: ["sh", "-c"], args: ["sleep 1"], workingDir: "/w",
      env: [{ name: "A", value: "1" }, { name: "B", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }],
      envFrom: [{ configMapRef: { name: "c" } }], resources: { limits: { cpu: "1" }, requests: { memory: "64Mi" } },
      volumeMounts: [{ name: "data", mountPath: "/data", readOnly: true }], securityContext: { runAsUser: 1000 }, restartPolicy: "Always",
    };
    expect(checkCreate(withSpec({ volumes: [{ name: "data", emptyDir: {} }], sidecars: [full] })).ok).toBe(true);
  });

  it("labels and annotations: Kubernetes key rules; label values at most 63 characters", () => {
    expect(checkCreate(withSpec({ labels: { team: "ml", "acme.io/tier": "gold", empty: "" }, annotations: { "acme.io/note": "anything goes here!" } })).ok).toBe(true);
    expect422(checkCreate(withSpec({ labels: { "bad key": "x" } })), [...RS, "labels", "bad key"], "invalid key");
    expect422(checkCreate(withSpec({ labels: { "Bad_Prefix/x": "x" } })), [...RS, "labels", "Bad_Prefix/x"], "prefix");
    expect422(checkCreate(withSpec({ labels: { ok: "has space" } })), [...RS, "labels", "ok"]);
    expect422(checkCreate(withSpec({ labels: { ok: "v".repeat(64) } })), [...RS, "labels", "ok"]);
    expect422(checkCreate(withSpec({ annotations: { "": "x" } })), [...RS, "annotations", ""]);
  });
});

describe("shape rules: 422 naming the field", () => {
  it("a main volume mount must name an existing volume", () => {
    expect422(
      checkCreate(withSpec({ volumes: [{ name: "data", emptyDir: {} }], volume_mounts: [{ name: "cache", mountPath: "/cache" }] })),
      [...RS, "volume_mounts", 0, "name"],
      "no volume named 'cache'",
    );
    expect(checkCreate(withSpec({ volumes: [{ name: "data", emptyDir: {} }], volume_mounts: [{ name: "data", mountPath: "/data" }] })).ok).toBe(true);
  });

  it("a container volume mount must name an existing volume", () => {
    const spec = { volumes: [{ name: "data" }], init_containers: [{ name: "init", image: "x", volumeMounts: [{ name: "data", mountPath: "/d" }, { name: "nope", mountPath: "/n" }] }] };
    expect422(checkCreate(withSpec(spec)), [...RS, "init_containers", 0, "volumeMounts", 1, "name"], "no volume named 'nope'");
  });

  it("volume names are unique and a volume has at most one source", () => {
    expect422(checkCreate(withSpec({ volumes: [{ name: "a" }, { name: "b" }, { name: "a" }] })), [...RS, "volumes", 2, "name"], "duplicate volume name 'a'");
    expect422(
      checkCreate(withSpec({ volumes: [{ name: "a", configMap: { name: "c" }, secret: { secretName: "s" } }] })),
      [...RS, "volumes", 0],
      "at most one source, found configMap, secret",
    );
  });

  it("mount paths are unique per container; container names unique across init containers and sidecars", () => {
    expect422(
      checkCreate(withSpec({ volumes: [{ name: "a" }], volume_mounts: [{ name: "a", mountPath: "/x" }, { name: "a", mountPath: "/x" }] })),
      [...RS, "volume_mounts", 1, "mountPath"],
      "duplicate mountPath",
    );
    expect422(
      checkCreate(withSpec({ init_containers: [{ name: "c", image: "x" }], sidecars: [{ name: "c", image: "y" }] })),
      [...RS, "sidecars", 0, "name"],
      "duplicate container name 'c'",
    );
  });

  it("EnvVar: valueFrom is not allowed with a non-empty value", () => {
    const env = (e: Record<string, unknown>) => withSpec({ sidecars: [{ name: "s", image: "x", env: [e] }] });
    expect422(checkCreate(env({ name: "A", value: "1", valueFrom: { fieldRef: {} } })), [...RS, "sidecars", 0, "env", 0, "valueFrom"], "'valueFrom' cannot be used");
    expect(checkCreate(env({ name: "A", value: "", valueFrom: { fieldRef: {} } })).ok).toBe(true);
    expect(checkCreate(env({ name: "A", valueFrom: { fieldRef: {} } })).ok).toBe(true);
    expect(checkCreate(env({ name: "A", value: "1", valueFrom: null })).ok).toBe(true);
  });

  it("explicit limits must be at least their requests, max_scale at least min_scale", () => {
    const cases: [Record<string, number>, string, string][] = [
      [{ cpu: 2, cpu_limit: 1 }, "cpu_limit", "'cpu_limit' (1) must be at least 'cpu' (2)"],
      [{ memory_mb: 2048, memory_limit_mb: 1024 }, "memory_limit_mb", "'memory_limit_mb' (1024) must be at least 'memory_mb' (2048)"],
      [{ queue_cpu: 4, queue_cpu_limit: 2 }, "queue_cpu_limit", "'queue_cpu_limit' (2) must be at least 'queue_cpu' (4)"],
      [{ queue_memory_mb: 4, queue_memory_limit_mb: 2 }, "queue_memory_limit_mb", "must be at least 'queue_memory_mb'"],
      [{ db_cpu: 1, db_cpu_limit: 0.5 }, "db_cpu_limit", "'db_cpu_limit' (0.5) must be at least 'db_cpu' (1)"],
      [{ db_memory_mb: 4, db_memory_limit_mb: 2 }, "db_memory_limit_mb", "must be at least 'db_memory_mb'"],
      [{ min_scale: 3, max_scale: 2 }, "max_scale", "'max_scale' (2) must be at least 'min_scale' (3)"],
      [{ queue_min_scale: 3, queue_max_scale: 2 }, "queue_max_scale", "must be at least 'queue_min_scale'"],
    ];
    for (const [spec, field, msg] of cases) expect422(checkCreate(withSpec(spec)), [...RS, field], msg);
    // Equal is fine, and a default never conflicts with an explicit value.
    expect(checkCreate(withSpec({ cpu: 2, cpu_limit: 2, min_scale: 3, queue_cpu_limit: 1, memory_limit_mb: 128 })).ok).toBe(true);
  });

  it("secret names are unique, and the mask placeholder is refused on create", () => {
    const a = hostedGit();
    a.secrets = [{ name: "A", value: "1" }, { name: "A", value: "2" }];
    expect422(checkCreate(a), ["body", "secrets", 1, "name"], "duplicate secret name 'A'");
    const b = hostedGit();
    b.secrets = [{ name: "A", value: MASK }];
    expect422(checkCreate(b), ["body", "secrets", 0, "value"], "placeholder");
  });

  it("reports every shape issue at once, and shape issues before source rules", () => {
    const body = hostedGit();
    body.source_config.resource_spec = { cpu: 2, cpu_limit: 1, volume_mounts: [{ name: "x", mountPath: "/x" }] };
    const { status, body: b } = errorOf(checkCreate(body));
    expect(status).toBe(422);
    expect((b as { detail: unknown[] }).detail).toHaveLength(2);
  });
});

describe("source rules: 400 'Source configuration error: …'", () => {
  it("hosted_git requires integration_id, repo_url, repo_ref and agent_config_path", () => {
    const fields: [string, string][] = [
      ["source_config", "integration_id"],
      ["source_config", "repo_url"],
      ["source_revision_config", "repo_ref"],
      ["source_revision_config", "agent_config_path"],
    ];
    for (const [part, field] of fields) {
      for (const absent of [undefined, null]) {
        const body = hostedGit();
        if (absent === undefined) delete body[part][field];
        else body[part][field] = null;
        expect400(checkCreate(body), `Source configuration error: '${part}.${field}' is required for 'hosted_git' source`);
      }
    }
  });

  it("external_container requires image_uri", () => {
    const body = external();
    delete body.source_revision_config.image_uri;
    expect400(checkCreate(body), "Source configuration error: 'source_revision_config.image_uri' is required for 'external_container' source");
  });

  it("hosted_git refuses the external_container fields", () => {
    const cases: [string, string, unknown][] = [
      ["source_revision_config", "image_uri", "ghcr.io/acme/agent:1"],
      ["source_config", "resource_spec", {}],
      ["source_config", "listener_id", LISTENER],
      ["source_config", "listener_config", { k8s_namespace: "agents" }],
    ];
    for (const [part, field, value] of cases) {
      const body = hostedGit();
      body[part][field] = value;
      expect400(checkCreate(body), `Source configuration error: '${part}.${field}' is not allowed for 'hosted_git' source`);
    }
    const body = hostedGit();
    body.source_config.custom_url = "https://mine.example.com";
    expect400(checkCreate(body), "Source configuration error: 'source_config.custom_url' is not allowed for 'hosted_git' source: it is assigned automatically");
  });

  it("external_container refuses the hosted_git fields (build and install commands included: nothing is built)", () => {
    const cases: [string, string, unknown][] = [
      ["source_config", "integration_id", INTEGRATION],
      ["source_config", "repo_url", "https://github.com/acme/agent"],
      ["source_config", "deployment_type", "prod"],
      ["source_config", "build_on_push", false],
      ["source_config", "install_command", "npm ci"],
      ["source_config", "build_command", "npm run build"],
      ["source_revision_config", "repo_ref", "main"],
      ["source_revision_config", "agent_config_path", "langgraph.json"],
    ];
    for (const [part, field, value] of cases) {
      const body = external();
      body[part][field] = value;
      expect400(checkCreate(body), `Source configuration error: '${part}.${field}' is not allowed for 'external_container' source`);
    }
  });

  it("a tag repo_ref cannot be combined with build_on_push true", () => {
    const body = hostedGit();
    body.source_revision_config.repo_ref = "refs/tags/v1.2.0";
    expect400(
      checkCreate(body),
      "Source configuration error: 'source_config.build_on_push' must be false when 'source_revision_config.repo_ref' is a tag ('refs/tags/v1.2.0')",
    );
    for (const bop of [false, null, undefined]) {
      const ok = hostedGit();
      ok.source_revision_config.repo_ref = "refs/tags/v1.2.0";
      ok.source_config.build_on_push = bop;
      expect(checkCreate(ok).ok).toBe(true);
    }
    for (const ref of ["refs/heads/main", "release/tags", "tags/v1"]) {
      const branch = hostedGit();
      branch.source_revision_config.repo_ref = ref;
      expect(checkCreate(branch).ok, ref).toBe(true);
    }
  });

  it("lists every problem in one message, missing fields first", () => {
    const body = hostedGit();
    delete body.source_config.repo_url;
    body.source_revision_config.image_uri = "x";
    expect400(
      checkCreate(body),
      "Source configuration error: 'source_config.repo_url' is required for 'hosted_git' source; 'source_revision_config.image_uri' is not allowed for 'hosted_git' source",
    );
  });
});

describe("query schemas", () => {
  const q = (schema: z.ZodType, query: Record<string, unknown>) => ({ ok: schema.safeParse(query).success });

  it("deployment list: defaults, bounds and CSV ids", () => {
    expect(deploymentListQuerySchema.parse({})).toEqual({ limit: 20, offset: 0 });
    expect(deploymentListQuerySchema.parse({ limit: "100", offset: "40", name: "a", name_contains: "b", status: "READY", deployment_type: "prod" })).toEqual({
      limit: 100, offset: 40, name: "a", name_contains: "b", status: "READY", deployment_type: "prod",
    });
    for (const limit of ["0", "101", "1.5", "x"]) expect(q(deploymentListQuerySchema, { limit }).ok, limit).toBe(false);
    expect(q(deploymentListQuerySchema, { offset: "-1" }).ok).toBe(false);
    expect(q(deploymentListQuerySchema, { status: "DEPLOYED" }).ok).toBe(false);
    expect(deploymentListQuerySchema.parse({ deployment_ids: ` ${INTEGRATION}, ${LISTENER},` }).deployment_ids).toEqual([INTEGRATION, LISTENER]);
    const bad = deploymentListQuerySchema.safeParse({ deployment_ids: `${INTEGRATION},nope` });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(["deployment_ids", 1]);
    expect(deploymentListQuerySchema.safeParse({ deployment_ids: Array(101).fill(INTEGRATION).join(",") }).success).toBe(false);
  });

  it("revision list: status is a CSV of revision statuses", () => {
    expect(revisionListQuerySchema.parse({ status: "DEPLOYED,BUILD_FAILED" })).toEqual({ status: ["DEPLOYED", "BUILD_FAILED"], limit: 20, offset: 0 });
    const bad = revisionListQuerySchema.safeParse({ status: "DEPLOYED,FAILED" });
    expect(bad.error!.issues[0]!.path).toEqual(["status", 1]);
  });

  it("logs: type required, limit 1-1000 default 50, opaque string offset, order asc|desc", () => {
    expect(logsQuerySchema.safeParse({}).error!.issues[0]!.path).toEqual(["type"]);
    expect(logsQuerySchema.parse({ type: "build" })).toEqual({ type: "build", limit: 50, order: "asc" });
    expect(logsQuerySchema.parse({ type: "deploy", limit: "1000", offset: "eyJpZCI6MX0", order: "desc" })).toEqual({
      type: "deploy", limit: 1000, offset: "eyJpZCI6MX0", order: "desc",
    });
    expect(logsQuerySchema.safeParse({ type: "deploy", limit: "1001" }).success).toBe(false);
    expect(logsQuerySchema.safeParse({ type: "run" }).success).toBe(false);
    expect(logsQuerySchema.safeParse({ type: "build", order: "up" }).success).toBe(false);
  });
});

describe("listeners", () => {
  it("create: compute_config defaults to {}, local listeners have no namespaces, namespaces are unique DNS labels", () => {
    expect(checkListenerCreate({ compute_type: "local", compute_id: "laptop" })).toEqual({
      ok: true,
      value: { compute_type: "local", compute_id: "laptop", compute_config: {} },
    });
    expect400(
      checkListenerCreate({ compute_type: "local", compute_id: "x", compute_config: { k8s_namespaces: ["a"] } }),
      "Listener configuration error: 'compute_config.k8s_namespaces' is not allowed for compute type 'local'",
    );
    expect422(checkListenerCreate({ compute_type: "k8s", compute_id: "c", compute_config: { k8s_namespaces: ["a", "b", "a"] } }), ["body", "compute_config", "k8s_namespaces", 2], "duplicate namespace 'a'");
    expect422(checkListenerCreate({ compute_type: "k8s", compute_id: "c", compute_config: { k8s_namespaces: ["A"] } }), ["body", "compute_config", "k8s_namespaces", 0]);
    expect422(checkListenerCreate({ compute_type: "docker", compute_id: "c" }), ["body", "compute_type"]);
    expect422(checkListenerCreate({ compute_type: "k8s", compute_id: "" }), ["body", "compute_id"]);
  });

  it("patch: validated against the stored compute type", () => {
    expect(checkListenerPatch("k8s", { compute_config: { k8s_namespaces: ["a"] }, version: "0.2.0" }).ok).toBe(true);
    expect(errorOf(checkListenerPatch("local", { compute_config: { k8s_namespaces: ["a"] } })).status).toBe(400);
    expect(checkListenerPatch("local", {}).ok).toBe(true);
  });

  it("placement: k8s_namespace only on k8s listeners, and within their namespaces when listed", () => {
    const k8s = { compute_type: "k8s" as const, compute_config: { k8s_namespaces: ["agents", "staging"] } };
    expect(() => validateListenerPlacement(k8s, { k8s_namespace: "agents" })).not.toThrow();
    expect(() => validateListenerPlacement(k8s, null)).not.toThrow();
    expect(() => validateListenerPlacement(k8s, { k8s_namespace: "prod" })).toThrow(
      "Listener configuration error: namespace 'prod' is not one of the listener's namespaces (agents, staging)",
    );
    expect(() => validateListenerPlacement({ compute_type: "k8s", compute_config: {} }, { k8s_namespace: "any" })).not.toThrow();
    expect(() => validateListenerPlacement({ compute_type: "local", compute_config: {} }, { k8s_namespace: "agents" })).toThrow(
      "Listener configuration error: 'source_config.listener_config.k8s_namespace' is not allowed for a listener with compute type 'local'",
    );
    expect(targetNamespace(k8s, null)).toBe("agents");
    expect(targetNamespace(k8s, { k8s_namespace: "staging" })).toBe("staging");
    expect(targetNamespace({ compute_type: "local", compute_config: {} }, null)).toBe(null);
  });
});

describe("OpenAPI", () => {
  it("every exported schema is representable as JSON Schema, both directions", () => {
    const schemas = Object.entries(rules).filter(([, v]) => v instanceof z.ZodType);
    expect(schemas.length).toBeGreaterThan(20);
    for (const [name, schema] of schemas) {
      for (const io of ["input", "output"] as const) {
        expect(() => z.toJSONSchema(schema as z.ZodType, { io, target: "draft-2020-12" }), `${name} (${io})`).not.toThrow();
      }
    }
  });

  it("an ApiRouter with the rules' schemas generates a document showing the reserved fields as null-only", () => {
    const router = new ApiRouter();
    router.add({ method: "post", path: "/v2/deployments", summary: "Create", tag: "Deployments", body: deploymentCreateRequestSchema }, () => null);
    router.add({ method: "patch", path: "/v2/deployments/:deployment_id", summary: "Patch", tag: "Deployments", body: deploymentPatchRequestSchema, uuidParams: ["deployment_id"] }, () => null);
    router.add({ method: "get", path: "/v2/deployments", summary: "List", tag: "Deployments", query: deploymentListQuerySchema }, () => null);
    const doc = router.openapi({ title: "t", version: "0.1.0" }) as any;
    const create = doc.paths["/v2/deployments"].post.requestBody.content["application/json"].schema;
    expect(create.required).toEqual(["name", "source", "source_config", "source_revision_config", "secrets"]);
    const spec = create.properties.source_config.properties.resource_spec.anyOf[0];
    expect(spec.properties.orchestrator_cpu).toMatchObject({ type: "null" });
    const params = doc.paths["/v2/deployments"].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(["name_contains", "name", "status", "deployment_type", "deployment_ids", "limit", "offset"]);
  });
});

describe("missing fields", () => {
  it("reports a missing required field as FastAPI does: Field required / missing", () => {
    const { secrets: _omit, ...body } = hostedGit();
    const r = checkCreate(body);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.status).toBe(422);
    expect(r.error.detail).toEqual([{ loc: ["body", "secrets"], msg: "Field required", type: "missing" }]);
  });
});
