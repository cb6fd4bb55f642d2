/**
 * Serves the web console's production build (dist/console, written by `npm run build`) at `/`:
 * hashed assets cached for good, index.html never cached and answered for every console route.
 * The page runs under a strict Content-Security-Policy: only this origin's scripts, no inline
 * script, no framing. Trace content is untrusted; the console renders it as text, and the policy
 * is the second line of defence.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import { CONSOLE_ROUTE_PREFIXES, CONSOLE_TRACING_HOME } from "../shared/console-routes.js";
import type { Logger } from "../shared/logging.js";
import { assetsHandlers, PAGE_HEADERS } from "../shared/static-site.js";

/**
 * dist/console beside the compiled server, or the repository's dist/console when run from source
 * (where `../console` is the console's sources: an index.html but no built assets).
 */
export function defaultConsoleDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, "../console"), path.resolve(here, "../../dist/console")];
  return candidates.find((d) => existsSync(path.join(d, "index.html")) && existsSync(path.join(d, "assets"))) ?? candidates[candidates.length - 1]!;
}

export function consoleRouter(dir: string, logger: Logger): express.Router {
  const router = express.Router();
  const index = path.join(dir, "index.html");
  const built = existsSync(index);
  if (!built) logger.warn({ dir }, "the web console is not built (run `npm run build`): / explains how");
  const sendIndex: express.RequestHandler = (_req, res) => {
    res.set(PAGE_HEADERS);
    if (built) res.sendFile(index);
    else
      res
        .status(503)
        .type("text/plain")
        .send(`The Berth web console is not built here. Run \`npm run build\` (or \`make dev\`), then reload.\nThe APIs are up: /docs (control plane), /tracing/docs (tracing).\n`);
  };
  router.get("/", sendIndex);
  for (const prefix of CONSOLE_ROUTE_PREFIXES) router.get([prefix, `${prefix}/*rest`], sendIndex);
  // `/tracing` is the tracing API's root, which has no resource of its own; a person who types it
  // (the console calls that section "Tracing") is sent to the console's tracing pages. API clients
  // keep the API's answer: only a request that prefers HTML over JSON (a browser) is redirected.
  router.get("/tracing", (req, res, next) => {
    res.vary("Accept");
    if (req.accepts(["application/json", "text/html"]) !== "text/html") return next();
    res.redirect(302, CONSOLE_TRACING_HOME);
  });
  if (built) {
    router.use("/assets", assetsHandlers(path.join(dir, "assets")));
  }
  return router;
}
