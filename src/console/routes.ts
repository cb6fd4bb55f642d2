/**
 * Links to the console's pages. Every one lies under a prefix of src/shared/console-routes.ts, which
 * the control plane answers with index.html (test/console/routes.test.ts holds them together).
 */
export const paths = {
  signIn: "/sign-in",
  deployments: "/deployments",
  deployment: (id: string) => `/deployments/${encodeURIComponent(id)}`,
  /** A deployment's Studio: a tab (graph, assistants, threads, run), the assistant shown and the thread opened. */
  studio: (id: string, tab = "graph", assistantId?: string, threadId?: string) => {
    const q = new URLSearchParams();
    if (assistantId) q.set("assistant", assistantId);
    if (threadId) q.set("thread", threadId);
    const qs = q.toString();
    return `/deployments/${encodeURIComponent(id)}/studio/${encodeURIComponent(tab)}${qs ? `?${qs}` : ""}`;
  },
  projects: "/projects",
  datasets: "/projects/datasets",
  dataset: (id: string) => `/projects/datasets/${encodeURIComponent(id)}`,
  /** Experiments of a dataset side by side: those compared (in order), the baseline, maybe one example only. */
  datasetCompare: (id: string, experiments: string[] | string = [], opts: { baseline?: string; example?: string } = {}) => {
    const q = new URLSearchParams();
    const list = Array.isArray(experiments) ? experiments : [experiments];
    if (list.length) q.set("experiments", list.join(","));
    if (opts.baseline) q.set("baseline", opts.baseline);
    if (opts.example) q.set("example", opts.example);
    const qs = q.toString();
    return `/projects/datasets/${encodeURIComponent(id)}/compare${qs ? `?${qs}` : ""}`;
  },
  project: (id: string) => `/projects/${encodeURIComponent(id)}`,
  dashboard: (id: string) => `/projects/${encodeURIComponent(id)}/dashboard`,
  threads: (id: string) => `/projects/${encodeURIComponent(id)}/threads`,
  thread: (id: string, threadId: string) => `/projects/${encodeURIComponent(id)}/threads/${encodeURIComponent(threadId)}`,
  trace: (traceId: string, runId?: string) => `/traces/${encodeURIComponent(traceId)}${runId ? `?run=${encodeURIComponent(runId)}` : ""}`,
  prices: "/prices",
  sharedTrace: (token: string) => `/public/${encodeURIComponent(token)}/r`,
};
