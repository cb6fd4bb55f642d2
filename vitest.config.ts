import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx", "src/**/*.test.ts"],
    // test/kind needs a real cluster: `make e2e-kind` runs it with vitest.kind.config.ts. The
    // real-API-server suites (test/operator/real-apiserver*) are ordinary files here: they start a private
    // kube-apiserver from binaries `scripts/kube-control-plane.sh build` caches outside the clone (.ci/run
    // builds them), skip with the reason where they are not built, and fail instead with CI=true.
    exclude: [...configDefaults.exclude, "test/kind/**"],
    // Hang guards, not expectations: on a loaded machine starting `berth serve` from source alone
    // can take tens of seconds. Tests wait on effects and return as soon as they hold.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: "forks",
    // Each file starts its own servers and databases; two at a time suits a 2-core machine.
    maxWorkers: 2,
    globalSetup: ["test/helpers/global-setup.ts"],
    // Quiet child processes (output shown only for failed tests) and UI waits sized for a busy machine.
    setupFiles: ["test/helpers/setup.ts"],
    // expect.poll gives up after 1 s by default: tuned for an idle machine. This is a hang guard;
    // a poll returns as soon as its condition holds.
    expect: { poll: { timeout: 20_000 } },
  },
});
