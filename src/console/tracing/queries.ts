/** The tracing API reads the pages share (react-query keys in one place, so pages share the cache). */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { data, tracing } from "../api/client";

export function useProject(projectId: string) {
  return useQuery({
    queryKey: ["tracing", "project", projectId],
    queryFn: async () => data(await tracing.GET("/projects/{project_id}", { params: { path: { project_id: projectId } } })),
    staleTime: 30_000,
  });
}

/** A trace's tree: shared by the page and the cold-load prefetch (src/console/prefetch.ts). */
export function traceQuery(traceId: string) {
  return queryOptions({
    queryKey: ["tracing", "trace", traceId],
    queryFn: async () => data(await tracing.GET("/traces/{trace_id}", { params: { path: { trace_id: traceId } } })),
  });
}

export function useTrace(traceId: string) {
  return useQuery(traceQuery(traceId));
}

export function useRun(runId: string | undefined) {
  return useQuery({
    queryKey: ["tracing", "run", runId],
    queryFn: async () => data(await tracing.GET("/runs/{run_id}", { params: { path: { run_id: runId! } } })),
    enabled: runId !== undefined,
    // a finished run does not change; walking the tree with the arrow keys revisits runs often
    staleTime: 60_000,
  });
}
