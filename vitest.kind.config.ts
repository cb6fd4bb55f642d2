import { defineConfig } from "vitest/config";

/** `make e2e-kind` only: the end-to-end flow on a real kind cluster (scripts/e2e-kind.sh sets it up). */
export default defineConfig({
  test: {
    include: ["test/kind/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
