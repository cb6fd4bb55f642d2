import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** Berth's own version (package.json), the same in source and compiled layouts. */
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
