/**
 * The standalone Studio's build: `npm run build` writes dist/studio, which a bare agent server
 * (`berth serve`) serves at `/studio/` (src/agent-server/studio.ts). The same Studio components as
 * the console's, with their own small entry (no console, no sign-in, no control plane).
 * Relative URLs (`base: "./"`): the page works wherever the server mounts it (`http.mount_prefix`).
 * `npx vite --config src/console/vite.studio.config.ts` runs it with hot reload against a running
 * `berth serve` (BERTH_AGENT_URL, default http://127.0.0.1:8123); open /studio/ there.
 */
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompress } from "./vite-precompress.ts";

const target = process.env.BERTH_AGENT_URL ?? "http://127.0.0.1:8123";
const API = ["/assistants", "/threads", "/runs", "/store", "/info", "/ok"];

export default defineConfig({
  root: fileURLToPath(new URL("./studio/standalone", import.meta.url)),
  base: "./",
  plugins: [react(), precompress()],
  build: {
    outDir: fileURLToPath(new URL("../../dist/studio", import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
    sourcemap: true,
  },
  server: {
    proxy: Object.fromEntries(API.map((p) => [p, { target, changeOrigin: false }])),
  },
});
