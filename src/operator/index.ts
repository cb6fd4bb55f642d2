/** The Berth Kubernetes operator: the AgentDeployment CR, its CRD, and the pure render of its children. */
export * from "./types.js";
export { crd, crdYaml, openApiSchema, toStructural } from "./crd.js";
export { render, url, type RenderOptions } from "./render/index.js";
