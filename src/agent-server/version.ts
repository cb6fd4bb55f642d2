import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

function versionOf(pkg: string): string {
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

export const BERTH_VERSION: string = (() => {
  for (const p of ["../../package.json", "../package.json"]) {
    try {
      return (require(p) as { version: string }).version;
    } catch {
      // compiled and source layouts differ by one directory
    }
  }
  return "0.0.0";
})();
export const LANGGRAPH_VERSION = versionOf("@langchain/langgraph");
