/**
 * The suites on a real kube-apiserver + kube-controller-manager (`make test-kube`): one private
 * control plane per file, from the binaries `scripts/kube-control-plane.sh build` caches. The
 * default config's settings, with only these files included.
 */
import { configDefaults, defineConfig } from "vitest/config";
import base from "./vitest.config.js";

export default defineConfig({
  test: { ...base.test, include: ["test/operator/real-apiserver*.test.ts"], exclude: [...configDefaults.exclude] },
});
