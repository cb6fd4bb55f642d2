/**
 * The web console's URL space, shared by the console (its router) and the control plane (which
 * answers a GET under any of these with the console's index.html, so a reload or a shared link
 * lands on the right page). The APIs live under /v1, /v2 and /tracing, which none of these touch.
 */
export const CONSOLE_ROUTE_PREFIXES = ["/sign-in", "/deployments", "/projects", "/traces", "/prices", "/public"] as const;

/** The console's tracing section (its "Tracing" link): where a browser opening `/tracing` is sent. */
export const CONSOLE_TRACING_HOME = "/projects";
