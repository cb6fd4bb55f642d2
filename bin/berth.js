#!/usr/bin/env node
// The `berth` command. From a source checkout it runs the TypeScript sources through tsx; from a
// published package or image (no src/), the compiled dist/.
import { existsSync } from "node:fs";

const src = new URL("../src/cli/main.ts", import.meta.url);
if (existsSync(src)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(src.href);
} else {
  await import(new URL("../dist/cli/main.js", import.meta.url).href);
}
