/**
 * On a cold load of a trace (a shared link, a reload), ask for the trace while the page's code is
 * still loading: the request would otherwise wait for the lazy page chunk and its libraries
 * (~500 ms measured by bench/console.ts), though the server answers in under 100 ms.
 */
import type { QueryClient } from "@tanstack/react-query";
import { readSession } from "./api/session-store";
import { traceQuery } from "./tracing/queries";

export function prefetchForLocation(queries: QueryClient, pathname: string): void {
  if (!readSession()) return; // the sign-in page comes first
  const trace = /^\/traces\/([^/]+)$/.exec(pathname);
  if (trace) {
    void queries.prefetchQuery(traceQuery(decodeURIComponent(trace[1]!)));
    void import("./pages/TraceView"); // the same chunk React.lazy asks for: its download starts now too
  }
}
