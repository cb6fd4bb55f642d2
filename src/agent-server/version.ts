import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

function versionOf(pkg: string): string {
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

export { BERTH_VERSION } from "../shared/version.js";
export const LANGGRAPH_VERSION = versionOf("@langchain/langgraph");
