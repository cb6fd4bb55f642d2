/**
 * Configuration of the k8s listener: the build fields of a k8s listener's compute_config (zod 422s,
 * 400 on a local listener), and the settings of `berth control-plane` / `berth dev` (defaults per
 * mode, BERTH_K8S auto-detection, errors that name the variable or flag to fix).
 */
import { describe, expect, it } from "vitest";
import { checkListenerCreate, checkListenerPatch, type CheckResult } from "../../src/control-plane/rules/index.js";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { ConfigError } from "../../src/shared/config.js";

const errorOf = (r: CheckResult<unknown>) => {
  if (r.ok) throw new Error("expected an error");
  return r.error;
};

describe("k8s listener compute_config", () => {
  const k8s = (compute_config: Record<string, unknown>) => checkListenerCreate({ compute_type: "k8s", compute_id: "cluster", compute_config });

  it("accepts a registry, a push secret and a Kaniko image", () => {
    const r = k8s({ k8s_namespaces: ["agents"], image_registry: "registry.example.com:5000/berth/agents", registry_push_secret: "regcred", kaniko_image: "gcr.io/kaniko-project/executor:v1.23.2" });
    expect(r).toEqual({
      ok: true,
      value: {
        compute_type: "k8s",
        compute_id: "cluster",
        compute_config: { k8s_namespaces: ["agents"], image_registry: "registry.example.com:5000/berth/agents", registry_push_secret: "regcred", kaniko_image: "gcr.io/kaniko-project/executor:v1.23.2" },
      },
    });
    expect(k8s({ image_registry: "localhost:5000" }).ok).toBe(true);
    expect(k8s({ image_registry: null, registry_push_secret: null, kaniko_image: null }).ok).toBe(true);
  });

  it("refuses malformed values with a 422 on the field", () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ image_registry: "https://registry.example.com/berth" }, "image_registry", /without a scheme/],
      [{ image_registry: "registry.example.com/berth/" }, "image_registry", /no tag and no trailing/],
      [{ image_registry: "Registry.example.com/Berth" }, "image_registry", /lowercase/],
      [{ image_registry: "registry.example.com/berth:latest" }, "image_registry", /registry path/],
      [{ registry_push_secret: "Reg_Cred" }, "registry_push_secret", /DNS subdomain/],
      [{ kaniko_image: "kaniko latest" }, "kaniko_image", /whitespace/],
    ];
    for (const [config, field, msg] of cases) {
      const err = errorOf(k8s(config));
      expect(err.status, field).toBe(422);
      expect(err.detail, field).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ["body", "compute_config", field], msg: expect.stringMatching(msg) })]));
    }
  });

  it("refuses them on a local listener with a 400 naming the fields (create and patch)", () => {
    const err = errorOf(checkListenerCreate({ compute_type: "local", compute_id: "laptop", compute_config: { image_registry: "r.example.com/x" } }));
    expect(err.status).toBe(400);
    expect(err.detail).toBe("Listener configuration error: 'compute_config.image_registry' is not allowed for compute type 'local'");
    const both = errorOf(checkListenerPatch("local", { compute_config: { registry_push_secret: "s", kaniko_image: "k:1" } }));
    expect(both.detail).toBe("Listener configuration error: 'compute_config.registry_push_secret', 'compute_config.kaniko_image' are not allowed for compute type 'local'");
    expect(checkListenerPatch("k8s", { compute_config: { image_registry: "r.example.com/x" } }).ok).toBe(true);
  });
});

describe("control plane settings", () => {
  const cp = (flags: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) => resolveControlPlaneSettings(flags, env, "control-plane");
  const message = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error("expected a ConfigError");
  };

  it("berth control-plane: 0.0.0.0:8080, keys required, k8s auto, the documented images", () => {
    const s = cp();
    expect(s).toMatchObject({ mode: "control-plane", host: "0.0.0.0", port: 8080, authMode: "required", k8s: false, kanikoImage: "gcr.io/kaniko-project/executor:v1.23.2", deployDeadlineSeconds: 300 });
    expect(s.agentBaseImage).toMatch(/^ghcr\.io\/berth-dev\/berth:\d+\.\d+\.\d+/);
    expect(s.k8sDefaultNamespace).toBe("default");
    expect(s.publicUrl).toBeUndefined();
  });

  it("berth dev keeps its defaults and drives a cluster only when BERTH_K8S=true", () => {
    expect(resolveControlPlaneSettings({}, {})).toMatchObject({ mode: "dev", host: "127.0.0.1", k8s: false });
    expect(resolveControlPlaneSettings({}, {}).authMode).toBeUndefined();
    expect(resolveControlPlaneSettings({}, { KUBECONFIG: "/tmp/kc" }).k8s).toBe(false);
    expect(resolveControlPlaneSettings({}, { BERTH_K8S: "true" }).k8s).toBe(true);
  });

  it("BERTH_K8S=auto is true in a pod or with a kubeconfig", () => {
    expect(cp({}, { KUBERNETES_SERVICE_HOST: "10.0.0.1" }).k8s).toBe(true);
    expect(cp({}, { KUBECONFIG: "/tmp/kc" })).toMatchObject({ k8s: true, kubeconfig: "/tmp/kc" });
    expect(cp({ kubeconfig: "/tmp/kc" }).k8s).toBe(true);
    expect(cp({}, { BERTH_K8S: "FALSE", KUBERNETES_SERVICE_HOST: "10.0.0.1" }).k8s).toBe(false);
    expect(cp({ k8s: true }).k8s).toBe(true);
  });

  it("reads every variable", () => {
    const s = cp(
      {},
      {
        HOST: "127.0.0.1",
        PORT: "9000",
        BERTH_K8S: "true",
        BERTH_K8S_DEFAULT_NAMESPACE: "agents",
        BERTH_K8S_NAMESPACES: "agents, staging",
        BERTH_PUBLIC_URL: "http://berth.berth-system.svc:8080",
        BERTH_AGENT_BASE_IMAGE: "registry.example.com/berth:1",
        BERTH_KANIKO_IMAGE: "kaniko:2",
        BERTH_IMAGE_REGISTRY: "registry.example.com/builds",
        BERTH_REGISTRY_PUSH_SECRET: "regcred",
        BERTH_DEPLOY_DEADLINE_SECONDS: "60",
        BERTH_AUTH_MODE: "loopback-open",
        LOG_LEVEL: "warn",
      },
    );
    expect(s).toMatchObject({
      host: "127.0.0.1",
      port: 9000,
      k8s: true,
      k8sDefaultNamespace: "agents",
      k8sNamespaces: "agents, staging",
      publicUrl: "http://berth.berth-system.svc:8080",
      agentBaseImage: "registry.example.com/berth:1",
      kanikoImage: "kaniko:2",
      imageRegistry: "registry.example.com/builds",
      registryPushSecret: "regcred",
      deployDeadlineSeconds: 60,
      authMode: "loopback-open",
      logLevel: "warn",
    });
  });

  it("errors name the variable or the flag", () => {
    expect(message(() => cp({}, { PORT: "eighty" }))).toMatch(/environment variable PORT: must be a number/);
    expect(message(() => cp({}, { BERTH_K8S: "maybe" }))).toMatch(/environment variable BERTH_K8S: must be true, false or auto/);
    expect(message(() => cp({}, { BERTH_PUBLIC_URL: "berth:8080" }))).toMatch(/environment variable BERTH_PUBLIC_URL: must be an http\(s\) URL/);
    expect(message(() => cp({}, { BERTH_K8S_DEFAULT_NAMESPACE: "Agents" }))).toMatch(/environment variable BERTH_K8S_DEFAULT_NAMESPACE: must be a Kubernetes namespace name/);
    expect(message(() => cp({}, { BERTH_K8S_NAMESPACES: "a,B" }))).toMatch(/environment variable BERTH_K8S_NAMESPACES/);
    expect(message(() => cp({}, { BERTH_IMAGE_REGISTRY: "https://r.example.com" }))).toMatch(/environment variable BERTH_IMAGE_REGISTRY: must be a registry path/);
    expect(message(() => cp({}, { BERTH_AGENT_BASE_IMAGE: "a b" }))).toMatch(/environment variable BERTH_AGENT_BASE_IMAGE: an image reference must not contain whitespace/);
    expect(message(() => cp({}, { BERTH_DEPLOY_DEADLINE_SECONDS: "0" }))).toMatch(/environment variable BERTH_DEPLOY_DEADLINE_SECONDS: must be positive/);
    expect(message(() => cp({ kanikoImage: "a b" }))).toMatch(/--kaniko-image: /);
    expect(message(() => cp({ k8sDefaultNamespace: "-x" }))).toMatch(/--k8s-default-namespace: /);
  });

  it("with DATABASE_URI, berth control-plane needs BERTH_SECRETS_KEY and BERTH_API_KEY from its configuration", () => {
    const msg = message(() => cp({}, { DATABASE_URI: "postgres://u@h/db" }));
    expect(msg).toMatch(/environment variable BERTH_SECRETS_KEY: required with DATABASE_URI/);
    expect(msg).toMatch(/environment variable BERTH_API_KEY: required with DATABASE_URI/);
    expect(message(() => cp({ secretsKeys: "k" }, { DATABASE_URI: "postgres://u@h/db" }))).toMatch(/BERTH_API_KEY/);
    expect(message(() => cp({ apiKey: "0123456789abcdef0" }, { DATABASE_URI: "postgres://u@h/db" }))).toMatch(/BERTH_SECRETS_KEY/);
    expect(cp({}, { DATABASE_URI: "postgres://u@h/db", BERTH_SECRETS_KEY: "k", BERTH_API_KEY: "0123456789abcdef0" }).databaseUri).toBe("postgres://u@h/db");
    // berth dev keeps generating them
    expect(resolveControlPlaneSettings({}, { DATABASE_URI: "postgres://u@h/db" }).databaseUri).toBe("postgres://u@h/db");
  });
});
