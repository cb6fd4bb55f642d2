/**
 * The standalone Studio (src/console/studio/standalone/, built by `npm run build` into
 * dist/studio) served by the agent server itself at `/studio/`: the console's Studio for a bare
 * `berth serve`, with no control plane. The page calls this server's API at its own origin.
 *
 * Only static files: the page and its assets are public (they hold no data); every API call the
 * page makes goes through the same Host/Origin rules and authentication as any other client's.
 * The build uses relative URLs (`./assets/…`), so it works under `http.mount_prefix` too: the page
 * is answered at `/studio/` and at one level below (`/studio/<tab>`), where `./assets` still
 * resolves to `/studio/assets`.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import { isLoopbackListenHost } from "../shared/local-access.js";
import { assetsHandlers, PAGE_HEADERS } from "../shared/static-site.js";
import type { AgentServerSettings } from "../shared/config.js";

/** Whether this server serves the Studio: as set, else on for a server on loopback. */
export function studioEnabled(settings: Pick<AgentServerSettings, "studio" | "host" | "serveHttp">): boolean {
  return settings.serveHttp && (settings.studio ?? isLoopbackListenHost(settings.host));
}

/** dist/studio beside the compiled server (dist/agent-server), or the repository's when run from source. */
export function defaultStudioDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, "../studio"), path.resolve(here, "../../dist/studio")];
  return candidates.find((d) => existsSync(path.join(d, "index.html")) && existsSync(path.join(d, "assets"))) ?? candidates[candidates.length - 1]!;
}

/** The Studio's tabs: the page's routes below `/studio/` (src/console/studio/Studio.tsx's STUDIO_TABS). */
const TAB_RE = /^[a-z]{1,32}$/;

export function studioRouter(dir: string): express.Router {
  const router = express.Router({ strict: true, caseSensitive: true });
  const index = path.join(dir, "index.html");
  const built = existsSync(index) && existsSync(path.join(dir, "assets"));
  const sendIndex: express.RequestHandler = (_req, res) => {
    res.set(PAGE_HEADERS);
    if (built) return res.sendFile(index);
    res.status(503).type("text/plain").send("The Berth Studio is not built here. Run `npm run build`, then reload.\nThe API is up: /docs.\n");
  };
  // relative, so it stays under a mount prefix: `/p/studio` → `/p/studio/`
  router.get("/studio", (req, res) => {
    const q = req.originalUrl.indexOf("?");
    res.redirect(308, `studio/${q >= 0 ? req.originalUrl.slice(q) : ""}`);
  });
  router.get("/studio/", sendIndex);
  if (built) router.use("/studio/assets", assetsHandlers(path.join(dir, "assets")));
  router.get("/studio/:tab", (req, res, next) => (TAB_RE.test(String(req.params.tab)) ? sendIndex(req, res, next) : next()));
  return router;
}
