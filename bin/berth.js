#!/usr/bin/env node
// The `berth` command. Runs the compiled dist/ (what images and published packages run: it starts
// faster and uses about half the memory); from a checkout without a build, or with
// BERTH_FROM_SOURCE=1, it runs the TypeScript sources through tsx.
import { existsSync } from "node:fs";

const dist = new URL("../dist/cli/main.js", import.meta.url);
const src = new URL("../src/cli/main.ts", import.meta.url);
if (existsSync(dist) && !(process.env.BERTH_FROM_SOURCE === "1" && existsSync(src))) {
  await import(dist.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(src.href);
}
