import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx", "src/**/*.test.ts"],
    // test/kind needs a real cluster: `make e2e-kind` runs it with vitest.kind.config.ts
    exclude: [...configDefaults.exclude, "test/kind/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Each file starts its own servers and databases; two at a time suits a 2-core machine.
    maxWorkers: 2,
    globalSetup: ["test/helpers/global-setup.ts"],
  },
});
