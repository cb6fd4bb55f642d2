/**
 * A real Kubernetes control plane per test file: etcd + kube-apiserver (TLS, RBAC) + kube-controller-manager,
 * started by scripts/kube-control-plane.sh in a private directory with its own ports, stopped after the file.
 *
 *   const kube = realKube();                 // call at module level: decides skip vs run
 *   describe.skipIf(!kube.available)(…, () => {
 *     let cp: KubeControlPlane;
 *     beforeAll(async () => { cp = await kube.start(); });
 *     afterAll(() => cp?.stop());
 *
 * The binaries are built once per machine (`scripts/kube-control-plane.sh build`, which `.ci/run` runs) and cached
 * under ~/.cache/berth/kube. Without them the suites skip with the reason — except with CI=true, where a missing
 * real API server fails the run.
 *
 * There is no node: pods are created by the real controllers but stay Pending unless a test plays the kubelet
 * (`cp.runPods()` binds them to a fake Node and marks them Running and Ready through the API, as a kubelet would).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeRest, type KubeObject } from "../../src/operator/kube/index.js";
import { helmAvailability, kubectl, type RunResult } from "./helm.js";
import { inCI } from "./services.js";

const SCRIPT = path.resolve(import.meta.dirname, "../../scripts/kube-control-plane.sh");

export interface KubeControlPlane {
  /** Directory with admin.kubeconfig, pki/, logs/. */
  dir: string;
  kubeconfigPath: string;
  server: string;
  /** e.g. v1.20.2 */
  version: string;
  /** A fresh client-node KubeConfig for the admin (system:masters). */
  kubeConfig(): KubeConfig;
  /** REST client as admin. */
  rest: KubeRest;
  /** A kubeconfig file for another identity (client certificate): RBAC applies to it. */
  userKubeconfig(user: string, groups?: string[]): Promise<string>;
  /** The same for a ServiceAccount (user system:serviceaccount:NS:NAME in its groups). */
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
  /** kubectl against this cluster (admin unless --kubeconfig is given in args). */
  kubectl(args: string[], options?: { kubeconfig?: string; input?: string }): Promise<RunResult>;
  /** Play the scheduler and kubelet once: bind Pending pods to a node, report them Running and Ready, finish deletions. */
  runPods(namespace?: string): Promise<number>;
  /** Restart kube-apiserver in place (same port, same etcd): every open watch breaks. */
  restartApiServer(): Promise<void>;
  stop(): Promise<void>;
}

export interface RealKube {
  available: boolean;
  /** Why not, when unavailable. */
  reason?: string;
  start(): Promise<KubeControlPlane>;
}

function binariesBuilt(): { ok: boolean; reason?: string } {
  try {
    execFileSync(SCRIPT, ["bin-dir"], { stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return { ok: false, reason: "no kube-apiserver built: run `scripts/kube-control-plane.sh build` (about 10 minutes once; cached in ~/.cache/berth/kube)" };
  }
  try {
    execFileSync("sh", ["-c", "command -v etcd && command -v openssl && command -v curl"], { stdio: "ignore" });
  } catch {
    return { ok: false, reason: "etcd, openssl or curl is missing: `scripts/kube-control-plane.sh build` installs them" };
  }
  const helm = helmAvailability();
  if (!helm.ok) return { ok: false, reason: `kubectl is unavailable: ${helm.reason}` };
  return { ok: true };
}

/** Whether the real-API-server suites can run here; with CI=true, unavailability throws (no silent skip). */
export function realKube(): RealKube {
  const b = binariesBuilt();
  if (!b.ok) {
    if (inCI) throw new Error(`CI=true but the real Kubernetes API server is unavailable: ${b.reason}`);
    console.warn(`\n⚠ real Kubernetes API server suites SKIPPED: ${b.reason}\n`);
  }
  return { available: b.ok, reason: b.reason, start: startKubeControlPlane };
}

function script(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(SCRIPT, args, { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(SCRIPT)} ${args.join(" ")} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export async function startKubeControlPlane(): Promise<KubeControlPlane> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "berth-kube-"));
  let out: string;
  try {
    out = await script(["start", dir], { BERTH_KUBE_PARENT_PID: String(process.pid) });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const env = Object.fromEntries(
    out
      .trim()
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  const kubeconfigPath = env.KUBECONFIG!;
  const kubeConfig = () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    return kc;
  };
  const rest = new KubeRest(kubeConfig());
  const userKubeconfig = async (user: string, groups: string[] = []) => (await script(["kubeconfig", dir, user, ...groups])).trim();
  let nodeCreated = false;
  return {
    dir,
    kubeconfigPath,
    server: env.BERTH_KUBE_SERVER!,
    version: env.BERTH_KUBE_VERSION!,
    kubeConfig,
    rest,
    userKubeconfig,
    serviceAccountKubeconfig: (namespace, name) => userKubeconfig(`system:serviceaccount:${namespace}:${name}`, ["system:serviceaccounts", `system:serviceaccounts:${namespace}`]),
    kubectl: (args, options = {}) => kubectl(["--kubeconfig", options.kubeconfig ?? kubeconfigPath, ...args], { env: {} }),
    async runPods(namespace) {
      if (!nodeCreated) {
        const existing = await rest.request("GET", "/api/v1/nodes/berth-test-node", { allow404: true });
        if (!existing) await rest.request("POST", "/api/v1/nodes", { body: { apiVersion: "v1", kind: "Node", metadata: { name: "berth-test-node" } } });
        nodeCreated = true;
      }
      return runPendingPods(rest, namespace);
    },
    async restartApiServer() {
      await script(["restart-apiserver", dir]);
    },
    async stop() {
      rest.close();
      await script(["stop", dir]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Bind Pending pods to the test node and report them Running and Ready (what the scheduler and a kubelet do). */
async function runPendingPods(rest: KubeRest, namespace?: string): Promise<number> {
  const path = namespace ? `/api/v1/namespaces/${namespace}/pods` : "/api/v1/pods";
  const pods = await rest.request<{ items: KubeObject[] }>("GET", path);
  let changed = 0;
  for (const pod of pods.items) {
    const ns = pod.metadata.namespace!;
    const name = pod.metadata.name;
    if (pod.metadata.deletionTimestamp) {
      // a kubelet confirms a graceful deletion once the containers stopped; without it the pod (and a PVC it
      // mounts, held by pvc-protection) would stay Terminating
      await rest.request("DELETE", `/api/v1/namespaces/${ns}/pods/${name}`, { allow404: true, body: { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0 } });
      changed++;
      continue;
    }
    const spec = pod.spec as { nodeName?: string; containers: { name: string; image: string }[] };
    const status = pod.status as { phase?: string } | undefined;
    if (!spec.nodeName) {
      await rest.request("POST", `/api/v1/namespaces/${ns}/pods/${name}/binding`, {
        body: { apiVersion: "v1", kind: "Binding", metadata: { name }, target: { apiVersion: "v1", kind: "Node", name: "berth-test-node" } },
      });
    }
    if (status?.phase === "Running") continue;
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    await rest.mergePatch({ apiVersion: "v1", kind: "Pod", namespace: ns, name }, {
      status: {
        phase: "Running",
        podIP: "10.244.0.10",
        startTime: now,
        conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({ type, status: "True", lastTransitionTime: now })),
        containerStatuses: spec.containers.map((c) => ({ name: c.name, image: c.image, imageID: "", ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } } })),
      },
    }, "status");
    changed++;
  }
  return changed;
}

/** Read a file of the control plane's directory (logs for failure messages). */
export function controlPlaneLog(cp: KubeControlPlane, name: "etcd" | "kube-apiserver" | "kube-controller-manager"): string {
  try {
    return readFileSync(path.join(cp.dir, "logs", `${name}.log`), "utf8");
  } catch {
    return "";
  }
}
