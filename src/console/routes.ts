export { CONSOLE_ROUTE_PREFIXES } from "../shared/console-routes";

export const paths = {
  signIn: "/sign-in",
  deployments: "/deployments",
  deployment: (id: string) => `/deployments/${encodeURIComponent(id)}`,
  projects: "/projects",
  project: (id: string) => `/projects/${encodeURIComponent(id)}`,
  dashboard: (id: string) => `/projects/${encodeURIComponent(id)}/dashboard`,
  threads: (id: string) => `/projects/${encodeURIComponent(id)}/threads`,
  thread: (id: string, threadId: string) => `/projects/${encodeURIComponent(id)}/threads/${encodeURIComponent(threadId)}`,
  trace: (traceId: string, runId?: string) => `/traces/${encodeURIComponent(traceId)}${runId ? `?run=${encodeURIComponent(runId)}` : ""}`,
  prices: "/prices",
};
