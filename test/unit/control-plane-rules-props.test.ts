/**
 * Property-based tests of the whole create and PATCH validation: whatever the body, the answer is ok,
 * a 400 with a string detail, or a 422 with well-formed `{loc, msg, type}` items whose loc starts at
 * "body" — never an exception (which the HTTP layer would turn into a 500).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MASK,
  RESERVED_RESOURCE_FIELDS,
  checkCreate,
  checkPatch,
  maskSecrets,
  sourceProblems,
  type CheckResult,
  type DeploymentConfig,
} from "../../src/control-plane/rules/index.js";

// ---------- well-formedness ----------

function assertWellFormed(r: CheckResult<unknown>): void {
  if (r.ok) return;
  const { status } = r.error;
  const body = JSON.parse(JSON.stringify(r.error.toBody())) as { detail: unknown };
  expect(Object.keys(body)).toEqual(["detail"]);
  if (status === 400) {
    expect(typeof body.detail).toBe("string");
    expect((body.detail as string).length).toBeGreaterThan(0);
    return;
  }
  expect(status).toBe(422);
  expect(Array.isArray(body.detail)).toBe(true);
  const items = body.detail as { loc: unknown; msg: unknown; type: unknown }[];
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) {
    expect(Object.keys(item).sort()).toEqual(["loc", "msg", "type"]);
    expect(Array.isArray(item.loc)).toBe(true);
    const loc = item.loc as unknown[];
    expect(loc[0]).toBe("body");
    for (const part of loc) expect(typeof part === "string" || (typeof part === "number" && Number.isInteger(part))).toBe(true);
    expect(typeof item.msg).toBe("string");
    expect((item.msg as string).length).toBeGreaterThan(0);
    expect(typeof item.type).toBe("string");
    expect((item.type as string).length).toBeGreaterThan(0);
  }
}

// ---------- valid bodies, correct by construction ----------

const dnsLabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
const envName = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,12}$/);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const nullish = <T>(a: fc.Arbitrary<T>) => fc.oneof(a, fc.constant(null), fc.constant(undefined));
// "xn--…" labels are punycode, and most random ones are not valid punycode: a URL parser refuses them
const hostLabel = dnsLabel.filter((h) => !/^..--/.test(h));
const url = fc.tuple(hostLabel, fc.constantFrom("http", "https")).map(([host, scheme]) => `${scheme}://${host}.example.com`);
const secrets = fc.uniqueArray(fc.record({ name: envName, value: fc.string().filter((v) => v !== MASK) }), { selector: (s) => s.name, maxLength: 4 });

/** A ResourceSpec that passes every rule: ordered pairs, mounts naming volumes, unique names. */
const resourceSpec = fc
  .record({
    volumeNames: fc.uniqueArray(dnsLabel, { maxLength: 3 }),
    containerNames: fc.uniqueArray(dnsLabel, { maxLength: 3 }),
    min: maybe(fc.integer({ min: 0, max: 5 })),
    extra: maybe(fc.integer({ min: 0, max: 5 })),
    cpu: maybe(fc.integer({ min: 1, max: 8 })),
    memory_mb: maybe(fc.integer({ min: 128, max: 8192 })),
    db_cpu: maybe(fc.constantFrom(0.25, 0.5, 1, 2)),
    labels: maybe(fc.dictionary(dnsLabel, dnsLabel, { maxKeys: 3 })),
  })
  .map(({ volumeNames, containerNames, min, extra, cpu, memory_mb, db_cpu, labels }) => {
    const spec: Record<string, unknown> = {};
    if (min !== undefined) spec.min_scale = min;
    if (min !== undefined && extra !== undefined) spec.max_scale = Math.max(1, min + extra);
    if (cpu !== undefined) [spec.cpu, spec.cpu_limit] = [cpu, cpu * 2];
    if (memory_mb !== undefined) spec.memory_mb = memory_mb;
    if (db_cpu !== undefined) spec.db_cpu = db_cpu;
    if (labels !== undefined) spec.labels = labels;
    if (volumeNames.length > 0) {
      spec.volumes = volumeNames.map((name, i) => (i % 2 === 0 ? { name, emptyDir: {} } : { name, configMap: { name: "cfg" } }));
      spec.volume_mounts = volumeNames.map((name, i) => ({ name, mountPath: `/mnt/${i}` }));
    }
    if (containerNames.length > 0) {
      spec.sidecars = containerNames.map((name, i) => ({
        name,
        image: `busybox:${i}`,
        env: [{ name: "A", value: "x" }, { name: "B", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
        volumeMounts: volumeNames.slice(0, 1).map((v) => ({ name: v, mountPath: "/data" })),
      }));
    }
    return spec;
  });

const ref = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9/._-]{0,15}$/), fc.stringMatching(/^v[0-9]\.[0-9]$/).map((v) => `refs/tags/${v}`));

const hostedGitBody = fc
  .record({
    name: dnsLabel,
    ref,
    bop: maybe(fc.boolean()),
    integration_id: fc.uuid(),
    repo_url: url,
    deployment_type: nullish(fc.constantFrom("dev_free", "dev", "prod")),
    agent_config_path: fc.constantFrom("langgraph.json", "./langgraph.json", "apps/agent/langgraph.json"),
    install_command: nullish(fc.constantFrom("npm ci", "pnpm i --frozen-lockfile", "")),
    secrets,
  })
  .map((b) => ({
    name: b.name,
    source: "hosted_git",
    source_config: {
      integration_id: b.integration_id,
      repo_url: b.repo_url,
      deployment_type: b.deployment_type,
      // A tag ref cannot build on push.
      build_on_push: b.ref.startsWith("refs/tags/") ? false : b.bop,
      install_command: b.install_command,
    },
    source_revision_config: { repo_ref: b.ref, agent_config_path: b.agent_config_path, image_uri: null },
    secrets: b.secrets,
  }));

const externalBody = fc
  .record({
    name: dnsLabel,
    image: fc.stringMatching(/^[a-z0-9]+(\/[a-z0-9]+)?:[a-z0-9.]{1,8}$/),
    custom_url: nullish(url),
    listener_id: nullish(fc.uuid()),
    ns: nullish(dnsLabel),
    resource_spec: nullish(resourceSpec),
    secrets,
  })
  .map((b) => ({
    name: b.name,
    source: "external_container",
    source_config: {
      custom_url: b.custom_url,
      listener_id: b.listener_id,
      listener_config: b.ns === undefined ? undefined : { k8s_namespace: b.ns },
      resource_spec: b.resource_spec,
    },
    source_revision_config: { image_uri: b.image },
    secrets: b.secrets,
  }));

const validBody = fc.oneof(hostedGitBody, externalBody);

// ---------- mutations ----------

type Path = (string | number)[];

function paths(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  }
  return out;
}

type Mutation =
  | { kind: "delete" }
  | { kind: "set"; value: unknown }
  | { kind: "addKey"; key: string; value: unknown };

function mutate(root: unknown, path: Path, m: Mutation): unknown {
  const copy = structuredClone(root);
  if (path.length === 0) return m.kind === "set" ? m.value : m.kind === "delete" ? undefined : copy;
  let parent: any = copy;
  for (const p of path.slice(0, -1)) parent = parent[p];
  const last = path[path.length - 1]!;
  if (m.kind === "delete") {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (m.kind === "set") {
    parent[last] = m.value;
  } else {
    const target = parent[last];
    if (target !== null && typeof target === "object" && !Array.isArray(target)) target[m.key] = m.value;
  }
  return copy;
}

/** Values likely to hit rules: reserved fields, masks, tags, wrong types, edge numbers. */
const interesting = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, "", 0, -1, 1.5, 1e21, "refs/tags/v1", MASK, true, false, [], {}, "hosted_git", "external_container", "../x", "A-B"),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({ kind: "delete" } as const),
  interesting.map((value) => ({ kind: "set", value }) as const),
  fc.tuple(fc.oneof(fc.constantFrom(...RESERVED_RESOURCE_FIELDS, "build_on_push", "image_uri", "custom_url", "valueFrom"), fc.string()), interesting).map(
    ([key, value]) => ({ kind: "addKey", key, value }) as const,
  ),
);

function mutated(base: fc.Arbitrary<unknown>, maxMutations = 3): fc.Arbitrary<unknown> {
  const step = (body: unknown): fc.Arbitrary<unknown> =>
    fc.tuple(fc.constantFrom(...paths(body)), mutation).map(([path, m]) => mutate(body, path, m));
  return base.chain((body) =>
    fc.integer({ min: 1, max: maxMutations }).chain((n) => {
      let arb: fc.Arbitrary<unknown> = fc.constant(body);
      for (let i = 0; i < n; i++) arb = arb.chain((b) => (b === undefined ? fc.constant(b) : step(b)));
      return arb;
    }),
  );
}

/** Bodies with the right top-level keys but arbitrary contents (often valid pieces), to reach past the first type check. */
const junk = fc.jsonValue({ maxDepth: 2 });
const sourceConfigKeys = ["integration_id", "repo_url", "deployment_type", "build_on_push", "custom_url", "resource_spec", "listener_id", "listener_config", "install_command", "build_command"] as const;
const shapedJunk = fc.record({
  name: fc.oneof(dnsLabel, junk),
  source: fc.oneof(fc.constantFrom("hosted_git", "external_container"), junk),
  source_config: fc.oneof(
    fc.record({
      integration_id: nullish(fc.oneof(fc.uuid(), junk)),
      repo_url: nullish(fc.oneof(url, junk)),
      deployment_type: nullish(fc.constantFrom("dev", "prod", "serverless")),
      build_on_push: nullish(fc.oneof(fc.boolean(), junk)),
      custom_url: nullish(fc.oneof(url, junk)),
      resource_spec: nullish(fc.oneof(resourceSpec, fc.dictionary(fc.constantFrom("cpu", "cpu_limit", "volumes", "volume_mounts", "sidecars", ...RESERVED_RESOURCE_FIELDS), junk))),
      listener_id: nullish(fc.uuid()),
      listener_config: nullish(fc.oneof(fc.record({ k8s_namespace: nullish(dnsLabel) }), junk)),
    }, { requiredKeys: [] }),
    fc.dictionary(fc.constantFrom(...sourceConfigKeys), junk),
  ),
  source_revision_config: fc.oneof(
    fc.record({ repo_ref: nullish(ref), agent_config_path: nullish(fc.constantFrom("langgraph.json", "/abs.json", "../x")), image_uri: nullish(fc.constantFrom("a:1", "a b")) }, { requiredKeys: [] }),
    junk,
  ),
  secrets: fc.oneof(secrets, fc.array(fc.record({ name: fc.oneof(envName, fc.string()), value: fc.oneof(fc.string(), fc.constant(MASK)) })), junk),
});

// ---------- properties: create ----------

describe("checkCreate properties", () => {
  it("arbitrary JSON never throws and always yields ok / 400 / 422 with a well-formed body", () => {
    fc.assert(fc.property(fc.jsonValue(), (body) => assertWellFormed(checkCreate(body))), { numRuns: 1000 });
  });

  it("bodies with the right keys and arbitrary contents are well-formed too", () => {
    fc.assert(fc.property(shapedJunk, (body) => assertWellFormed(checkCreate(body))), { numRuns: 1000 });
  });

  it("valid bodies are accepted, and the stored form is itself a valid body (a fixed point)", () => {
    fc.assert(
      fc.property(validBody, (body) => {
        const r = checkCreate(body);
        if (!r.ok) throw new Error(`${r.error.status} ${JSON.stringify(r.error.toBody())} for ${JSON.stringify(body)}`);
        expect(checkCreate(r.value)).toEqual(r);
        expect(sourceProblems(r.value)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it("randomly mutated valid bodies are well-formed, and accepted results pass the source rules", () => {
    fc.assert(
      fc.property(mutated(validBody), (body) => {
        const r = checkCreate(body);
        assertWellFormed(r);
        if (r.ok) {
          expect(sourceProblems(r.value)).toEqual([]);
          expect(checkCreate(r.value).ok).toBe(true);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("any non-null reserved field anywhere in a resource_spec is a 422 naming it", () => {
    fc.assert(
      fc.property(externalBody, fc.constantFrom(...RESERVED_RESOURCE_FIELDS), fc.jsonValue().filter((v) => v !== null), (body, field, value) => {
        const b = structuredClone(body) as any;
        b.source_config.resource_spec = { ...(b.source_config.resource_spec ?? {}), [field]: value };
        const r = checkCreate(b);
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.error.status).toBe(422);
        expect((r.error.detail as { loc: unknown[] }[]).some((d) => JSON.stringify(d.loc) === JSON.stringify(["body", "source_config", "resource_spec", field]))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------- properties: patch ----------

/** A stored config, as the control plane keeps it after a create (hosted_git gets an assigned URL). */
const storedConfig: fc.Arbitrary<DeploymentConfig> = validBody.map((body) => {
  const r = checkCreate(body);
  if (!r.ok) throw new Error("validBody produced an invalid body");
  if (r.value.source === "hosted_git") r.value.source_config.custom_url = `https://${r.value.name}.berth.local`;
  return r.value;
});

/** A patch built from valid parts of another deployment: often legal, often not (other source, immutables). */
const patchFromParts = fc.tuple(validBody, fc.boolean(), fc.boolean(), fc.boolean(), fc.boolean()).map(([b, withName, withSc, withSrc, withSecrets]) => {
  const body = b as any;
  const patch: Record<string, unknown> = {};
  if (withName) patch.name = body.name;
  if (withSc) patch.source_config = body.source_config;
  if (withSrc) patch.source_revision_config = body.source_revision_config;
  if (withSecrets) patch.secrets = body.secrets;
  return patch;
});

/** The GET response of a stored config, as a client would send it back. */
const responseOf = (c: DeploymentConfig) => ({ ...structuredClone(c), secrets: maskSecrets(c.secrets) });

describe("checkPatch properties", () => {
  const invariants = (current: DeploymentConfig, r: ReturnType<typeof checkPatch>) => {
    assertWellFormed(r);
    if (!r.ok) return;
    const plan = r.value;
    expect(plan.next.name).toBe(current.name);
    expect(plan.next.source).toBe(current.source);
    expect(plan.createsRevision).toBe(plan.revisionTriggers.length > 0);
    expect(plan.revision === null).toBe(!plan.createsRevision);
    expect(sourceProblems(plan.next, { assignedCustomUrl: current.source === "hosted_git" ? current.source_config.custom_url : null })).toEqual([]);
    if (!plan.createsRevision) {
      expect(plan.next.secrets).toEqual(current.secrets);
      expect(plan.next.source_revision_config).toEqual(current.source_revision_config);
      expect(plan.next.source_config.resource_spec).toEqual(current.source_config.resource_spec);
    }
    for (const field of ["integration_id", "repo_url", "deployment_type", "listener_id", "listener_config"] as const) {
      expect(plan.next.source_config[field]).toEqual(current.source_config[field]);
    }
  };

  it("arbitrary JSON never throws and always yields ok / 400 / 422 with a well-formed body", () => {
    fc.assert(fc.property(storedConfig, fc.jsonValue(), (current, body) => invariants(current, checkPatch(current, body))), { numRuns: 700 });
  });

  it("patches made of valid parts keep the invariants (immutables, source, revision bookkeeping)", () => {
    fc.assert(fc.property(storedConfig, patchFromParts, (current, body) => invariants(current, checkPatch(current, body))), { numRuns: 1000 });
  });

  it("mutated GET responses sent back keep the invariants", () => {
    const arb = storedConfig.chain((current) => fc.tuple(fc.constant(current), mutated(fc.constant(responseOf(current)))));
    fc.assert(fc.property(arb, ([current, body]) => invariants(current, checkPatch(current, body))), { numRuns: 1500 });
  });

  it("an unmodified GET response sent back changes nothing", () => {
    fc.assert(
      fc.property(storedConfig, (current) => {
        const r = checkPatch(current, responseOf(current));
        if (!r.ok) throw new Error(`${r.error.status} ${JSON.stringify(r.error.toBody())}`);
        expect(r.value.next).toEqual(current);
        expect(r.value.changedFields).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("an empty or all-null patch is a no-op", () => {
    fc.assert(
      fc.property(storedConfig, fc.constantFrom({}, { name: null, source: null, source_config: null, source_revision_config: null, secrets: null }), (current, body) => {
        expect(checkPatch(current, body)).toEqual({ ok: true, value: { next: current, createsRevision: false, revisionTriggers: [], revision: null, changedFields: [] } });
      }),
      { numRuns: 100 },
    );
  });
});
