/**
 * Links to the console's pages. Every one lies under a prefix of src/shared/console-routes.ts, which
 * the control plane answers with index.html (test/console/routes.test.ts holds them together).
 */
export const paths = {
  signIn: "/sign-in",
  deployments: "/deployments",
  deployment: (id: string) => `/deployments/${encodeURIComponent(id)}`,
  /** A deployment's Studio: a tab (graph, assistants, threads, run) and the assistant shown. */
  studio: (id: string, tab = "graph", assistantId?: string) =>
    `/deployments/${encodeURIComponent(id)}/studio/${encodeURIComponent(tab)}${assistantId ? `?assistant=${encodeURIComponent(assistantId)}` : ""}`,
  projects: "/projects",
  datasets: "/projects/datasets",
  dataset: (id: string) => `/projects/datasets/${encodeURIComponent(id)}`,
  project: (id: string) => `/projects/${encodeURIComponent(id)}`,
  dashboard: (id: string) => `/projects/${encodeURIComponent(id)}/dashboard`,
  threads: (id: string) => `/projects/${encodeURIComponent(id)}/threads`,
  thread: (id: string, threadId: string) => `/projects/${encodeURIComponent(id)}/threads/${encodeURIComponent(threadId)}`,
  trace: (traceId: string, runId?: string) => `/traces/${encodeURIComponent(traceId)}${runId ? `?run=${encodeURIComponent(runId)}` : ""}`,
  prices: "/prices",
  sharedTrace: (token: string) => `/public/${encodeURIComponent(token)}/r`,
};
