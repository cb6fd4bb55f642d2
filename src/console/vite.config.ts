/**
 * The console's build: `npm run build` writes dist/console, which the control plane serves at `/`.
 * `npx vite --config src/console/vite.config.ts` runs it with hot reload against a running
 * `berth dev` (BERTH_URL, default http://127.0.0.1:8080), proxying the APIs.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));
const target = process.env.BERTH_URL ?? "http://127.0.0.1:8080";

/**
 * Each script and stylesheet also as .br and .gz beside it, compressed once at build time at the
 * highest levels; the control plane serves them to clients that accept them (src/control-plane/console.ts).
 */
function precompress(): Plugin {
  return {
    name: "berth-precompress",
    apply: "build",
    writeBundle(options) {
      const assets = path.join(options.dir!, "assets");
      for (const name of readdirSync(assets)) {
        if (!/\.(js|css)$/.test(name)) continue;
        const data = readFileSync(path.join(assets, name));
        writeFileSync(path.join(assets, `${name}.br`), brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }));
        writeFileSync(path.join(assets, `${name}.gz`), gzipSync(data, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root,
  base: "/",
  plugins: [react(), precompress()],
  build: {
    outDir: fileURLToPath(new URL("../../dist/console", import.meta.url)),
    emptyOutDir: true,
    // one chunk per heavy library keeps the first paint of a page that needs no chart small
    chunkSizeWarningLimit: 1024,
    sourcemap: true,
  },
  server: {
    proxy: Object.fromEntries(["/v1", "/v2", "/tracing", "/ok"].map((p) => [p, { target, changeOrigin: false }])),
  },
});
