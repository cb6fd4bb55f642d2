/**
 * The deployment's Postgres: credentials Secret, headless Service, StatefulSet with one PVC.
 *
 * The password: a pure render cannot generate random values, so by default it is derived
 * deterministically from the CR's uid (sha256 of a fixed prefix and the uid). A uid is not a secret
 * (anyone who can read the CR can compute it), so the controller should pass a random password it
 * generated once and keeps (`RenderOptions.postgresPassword`, e.g. read back from the existing Secret).
 */
import { createHash } from "node:crypto";
import { ALL_FEATURES, type ClusterFeatures } from "../kube/capabilities.js";
import type { AgentDeployment, KubernetesObject } from "../types.js";
import { cpuQuantity, gi, labels, metadata, mi, selectorLabels } from "./meta.js";
import type { ChildNames } from "./names.js";

export const POSTGRES_IMAGE = "postgres:16-alpine";
export const POSTGRES_PORT = 5432;
export const POSTGRES_USER = "postgres";
export const POSTGRES_DB = "postgres";
export const POSTGRES_PASSWORD_KEY = "password";
/** Only characters that need no escaping inside a connection URI. */
export const PASSWORD_RE = /^[A-Za-z0-9]{16,}$/;

export function derivedPostgresPassword(ad: AgentDeployment): string {
  return createHash("sha256").update(`berth-postgres:${ad.metadata.uid}`).digest("hex").slice(0, 32);
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

export function postgresSecret(ad: AgentDeployment, names: ChildNames, password: string): KubernetesObject {
  if (!PASSWORD_RE.test(password)) throw new Error("the Postgres password must be at least 16 letters and digits");
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: metadata(ad, names.postgresSecret, "postgres"),
    type: "Opaque",
    data: { username: b64(POSTGRES_USER), [POSTGRES_PASSWORD_KEY]: b64(password), database: b64(POSTGRES_DB) },
  };
}

export function postgresService(ad: AgentDeployment, names: ChildNames): KubernetesObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(ad, names.postgresService, "postgres"),
    spec: {
      // Headless: the StatefulSet's governing Service; its DNS name resolves to the one pod.
      clusterIP: "None",
      selector: selectorLabels(ad, "postgres"),
      ports: [{ name: "postgres", port: POSTGRES_PORT, targetPort: "postgres", protocol: "TCP" }],
    },
  };
}

export function postgresStatefulSet(ad: AgentDeployment, names: ChildNames, features: ClusterFeatures = ALL_FEATURES): KubernetesObject {
  const r = ad.spec.resourceSpec;
  const meta = metadata(ad, names.postgres, "postgres");
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: meta,
    spec: {
      replicas: 1,
      serviceName: names.postgresService,
      selector: { matchLabels: selectorLabels(ad, "postgres") },
      // Older clusters refuse the field; the finalizer deletes the claims there (reconcile.ts).
      ...(features.pvcRetentionPolicy ? { persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" } } : {}),
      template: {
        metadata: { labels: labels(ad, "postgres"), ...(meta.annotations ? { annotations: meta.annotations } : {}) },
        spec: {
          enableServiceLinks: false,
          containers: [
            {
              name: "postgres",
              image: POSTGRES_IMAGE,
              args: ["-c", `max_connections=${r.db_max_connections}`],
              ports: [{ name: "postgres", containerPort: POSTGRES_PORT, protocol: "TCP" }],
              env: [
                { name: "POSTGRES_USER", value: POSTGRES_USER },
                { name: "POSTGRES_DB", value: POSTGRES_DB },
                { name: "POSTGRES_PASSWORD", valueFrom: { secretKeyRef: { name: names.postgresSecret, key: POSTGRES_PASSWORD_KEY } } },
                // A subdirectory: the volume's root may hold lost+found, which initdb refuses.
                { name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" },
              ],
              resources: {
                requests: { cpu: cpuQuantity(r.db_cpu), memory: mi(r.db_memory_mb) },
                limits: { cpu: cpuQuantity(r.db_cpu_limit), memory: mi(r.db_memory_limit_mb) },
              },
              readinessProbe: {
                exec: { command: ["pg_isready", "-U", POSTGRES_USER, "-d", POSTGRES_DB] },
                periodSeconds: 5,
                failureThreshold: 3,
              },
              livenessProbe: {
                exec: { command: ["pg_isready", "-U", POSTGRES_USER, "-d", POSTGRES_DB] },
                initialDelaySeconds: 30,
                periodSeconds: 10,
                failureThreshold: 6,
              },
              volumeMounts: [{ name: "data", mountPath: "/var/lib/postgresql/data" }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: { name: "data", labels: labels(ad, "postgres"), ...(meta.annotations ? { annotations: meta.annotations } : {}) },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: gi(r.db_storage_gi) } } },
        },
      ],
    },
  };
}

/** The URI the agent pods use; `$(POSTGRES_PASSWORD)` is expanded by the kubelet from the env var defined before it. */
export function databaseUri(ad: AgentDeployment, names: ChildNames): string {
  return `postgres://${POSTGRES_USER}:$(POSTGRES_PASSWORD)@${names.postgresService}.${ad.metadata.namespace}.svc:${POSTGRES_PORT}/${POSTGRES_DB}`;
}
