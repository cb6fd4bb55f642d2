/**
 * What the web pages Berth serves (the control plane's console, the agent server's standalone
 * Studio) share: their Content-Security-Policy, the headers of their HTML, and the build's hashed
 * assets (cached for good, precompressed copies served to clients that accept them).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import express from "express";

/**
 * Only this origin's scripts, no inline script, no framing. Content shown (traces, thread state)
 * is untrusted; the pages render it as text, and the policy is the second line of defence.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // React sets style attributes (widths of bars, chart sizes); no stylesheet comes from elsewhere
  "style-src 'self' 'unsafe-inline'",
  // traces show images and media from wherever the model saw them, and inline (data:) ones
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' data: blob: https: http:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/** The headers of a page's index.html: the policy, no sniffing, no referrer, never cached. */
export const PAGE_HEADERS: Record<string, string> = {
  "Content-Security-Policy": PAGE_CSP,
  "X-Content-Type-Options": "nosniff",
  // for browsers that predate frame-ancestors
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-cache",
};

/** The build's `assets/` directory: precompressed copies first, then the files; a missing one is a 404. */
export function assetsHandlers(assets: string): express.RequestHandler[] {
  return [
    precompressed(assets),
    express.static(assets, {
      index: false,
      fallthrough: false,
      immutable: true,
      maxAge: "365d",
      setHeaders: (res) => res.set("X-Content-Type-Options", "nosniff"),
    }),
  ];
}

const ENCODINGS = [
  { name: "br", ext: ".br" },
  { name: "gzip", ext: ".gz" },
] as const;

/**
 * The build writes each asset compressed beside itself (`x.js.br`, `x.js.gz`; see
 * src/console/vite.config.ts): a client that accepts one gets it, with the original's type. The
 * bundles are ~1 MB in all, a few hundred KB compressed — what a page over a real network waits for.
 */
function precompressed(assets: string): express.RequestHandler {
  const files = new Set(readdirSync(assets));
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const name = req.path.slice(1);
    if (!files.has(name) || name.includes("/")) return next();
    const accepted = req.acceptsEncodings(ENCODINGS.map((e) => e.name));
    const encoding = ENCODINGS.find((e) => e.name === accepted && files.has(name + e.ext));
    res.vary("Accept-Encoding");
    if (!encoding) return next();
    res.set({ "Content-Encoding": encoding.name, "X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=31536000, immutable" });
    res.type(path.extname(name));
    res.sendFile(path.join(assets, name + encoding.ext));
  };
}
