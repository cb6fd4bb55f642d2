/**
 * The control-plane requests of the deployment pages, as react-query hooks. Query keys all start
 * with "deployments", so a mutation invalidates every view of the deployments with one call.
 * POST and PATCH carry an Idempotency-Key (the API replays the first answer for a repeat), made
 * once per user action, so a retried request cannot create a second revision.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { controlPlane, data } from "../api/client";
import type { Writable } from "openapi-typescript-helpers";
import type { paths } from "../api/control-plane.gen";
import type { Deployment, LogPage, Revision } from "../api/types";
import { POLL_MS, isRevisionInProgress, isDeploymentTransitional } from "./status";

export const keys = {
  all: ["deployments"] as const,
  list: (q: ListQuery) => ["deployments", "list", q] as const,
  one: (id: string) => ["deployments", "one", id] as const,
  revisions: (id: string) => ["deployments", "revisions", id] as const,
  revision: (id: string, rid: string) => ["deployments", "revision", id, rid] as const,
};

export interface ListQuery {
  name_contains?: string;
  limit: number;
  offset: number;
}

/**
 * A random v4 UUID. crypto.randomUUID exists only in secure contexts (https or localhost); a
 * control plane reached over plain http on another host still gets a key, from getRandomValues.
 */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const idempotent = () => ({ "Idempotency-Key": newIdempotencyKey() });

export function fetchDeployments(q: ListQuery) {
  return controlPlane
    .GET("/v2/deployments", { params: { query: { limit: q.limit, offset: q.offset, ...(q.name_contains ? { name_contains: q.name_contains } : {}) } } })
    .then((r) => data(r));
}

export function useDeploymentList(q: ListQuery, poll: (list: Deployment[] | undefined) => boolean) {
  return useQuery({
    queryKey: keys.list(q),
    queryFn: () => fetchDeployments(q),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (poll(query.state.data?.resources) ? POLL_MS : false),
  });
}

export function fetchRevision(deploymentId: string, revisionId: string): Promise<Revision> {
  return controlPlane
    .GET("/v2/deployments/{deployment_id}/revisions/{revision_id}", { params: { path: { deployment_id: deploymentId, revision_id: revisionId } } })
    .then((r) => data(r));
}

/** `pollWhile`: besides teardown, what keeps the page asking (e.g. a revision in progress). */
export function useDeployment(id: string, options: { pollWhile?: (d: Deployment) => boolean } = {}) {
  return useQuery({
    queryKey: keys.one(id),
    queryFn: () =>
      controlPlane.GET("/v2/deployments/{deployment_id}", { params: { path: { deployment_id: id } } }).then((r) => data(r)),
    refetchInterval: (query) => {
      const d = query.state.data;
      if (!d || query.state.error) return false;
      return isDeploymentTransitional(d.status) || options.pollWhile?.(d) ? POLL_MS : false;
    },
  });
}

/** Revisions, newest first (the API's order); `limit` grows with "show older". */
export function useRevisions(id: string, limit: number) {
  return useQuery({
    queryKey: [...keys.revisions(id), limit],
    queryFn: () =>
      controlPlane
        .GET("/v2/deployments/{deployment_id}/revisions", { params: { path: { deployment_id: id }, query: { limit, offset: 0 } } })
        .then((r) => data(r)),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.resources.some((r) => isRevisionInProgress(r.status)) ? POLL_MS : false),
  });
}

export function fetchLogs(deploymentId: string, revisionId: string, type: "build" | "deploy", offset: string | undefined, limit: number): Promise<LogPage> {
  return controlPlane
    .GET("/v2/deployments/{deployment_id}/revisions/{revision_id}/logs", {
      params: {
        path: { deployment_id: deploymentId, revision_id: revisionId },
        query: { type, limit, order: "asc", ...(offset !== undefined ? { offset } : {}) },
      },
    })
    .then((r) => data(r));
}

/** After any change: every list, deployment and revision view asks again. */
function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: keys.all });
}

/** PATCH: a new revision when revision fields, secrets or resource_spec are sent. */
export function usePatchDeployment(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: PatchBody) =>
      controlPlane
        .PATCH("/v2/deployments/{deployment_id}", { params: { path: { deployment_id: id } }, body, headers: idempotent() })
        .then((r) => data(r)),
    onSettled: invalidate,
  });
}

/** POST …/revisions: always a new revision, optionally changing the deployment like PATCH. */
export function useCreateRevision(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: PatchBody) =>
      controlPlane
        .POST("/v2/deployments/{deployment_id}/revisions", { params: { path: { deployment_id: id } }, body, headers: idempotent() })
        .then((r) => data(r)),
    onSettled: invalidate,
  });
}

/** Roll back: a new revision with an older revision's configuration. */
export function useRedeploy(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (revisionId: string) =>
      controlPlane
        .POST("/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy", {
          params: { path: { deployment_id: id, revision_id: revisionId } },
          headers: idempotent(),
        })
        .then((r) => data(r)),
    onSettled: invalidate,
  });
}

export function useDeleteDeployment(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: () => controlPlane.DELETE("/v2/deployments/{deployment_id}", { params: { path: { deployment_id: id } } }).then((r) => void data(r)),
    onSettled: invalidate,
  });
}

/**
 * Request bodies as openapi-fetch takes them: the generated operation's body through its `Writable`
 * (which turns the null-only reserved resource_spec fields into undefined-only ones, so the named
 * DeploymentPatchRequest schema type is not accepted as is).
 */
export type CreateBody = Writable<paths["/v2/deployments"]["post"]["requestBody"]["content"]["application/json"]>;
export type PatchBody = Writable<paths["/v2/deployments/{deployment_id}"]["patch"]["requestBody"]["content"]["application/json"]>;

export function createDeployment(body: CreateBody): Promise<Deployment> {
  return controlPlane.POST("/v2/deployments", { body, headers: idempotent() }).then((r) => data(r));
}

export function useCreateDeployment() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: createDeployment, onSettled: invalidate });
}

/** The hosted-git integrations of this tenant (for the create form's source). */
export function useIntegrations(enabled: boolean) {
  return useQuery({
    queryKey: ["integrations"],
    enabled,
    queryFn: () => controlPlane.GET("/v1/integrations/hosted_git/install").then((r) => data(r)),
  });
}
