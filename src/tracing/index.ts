/** The tracing facility's public surface. */
export { openTracingFacility, type TracingFacility } from "./facility.js";
export { startTracingServer, type TracingServerHandle } from "./server.js";
export { resolveTracingSettings, effectiveAuthMode, type TracingSettings } from "./settings.js";
export { normalizeLlmRun } from "./messages/normalize.js";
