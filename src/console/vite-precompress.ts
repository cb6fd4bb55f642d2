/** A Vite build step both web builds share (the console, the standalone Studio). */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/**
 * Each script and stylesheet also as .br and .gz beside it, compressed once at build time at the
 * highest levels; the control plane serves them to clients that accept them (src/shared/static-site.ts).
 */
export function precompress(): Plugin {
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
