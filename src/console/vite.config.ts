/**
 * The console's build: `npm run build` writes dist/console, which the control plane serves at `/`.
 * `npx vite --config src/console/vite.config.ts` runs it with hot reload against a running
 * `berth dev` (BERTH_URL, default http://127.0.0.1:8080), proxying the APIs. The standalone Studio
 * that a bare agent server serves is a second build: vite.studio.config.ts.
 */
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompress } from "./vite-precompress.ts";

const root = fileURLToPath(new URL(".", import.meta.url));
const target = process.env.BERTH_URL ?? "http://127.0.0.1:8080";

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
