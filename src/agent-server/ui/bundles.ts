/**
 * The generative-UI bundles of one agent server: one per graph langgraph.json's `ui` names, built
 * in the background at start-up (serving never waits for esbuild; a request for a bundle waits for
 * its build), served from the build cache when the sources are unchanged. A bundle that does not
 * build is logged with its file and esbuild's messages, and its routes answer that error.
 */
import path from "node:path";
import type { Logger } from "../../shared/logging.js";
import { buildUiBundle, recipeOf, UiBuildError, type UiAsset, type UiBuildRequest } from "./bundle.js";
import { UiBuildCache } from "./cache.js";

export type UiBundleState = { ok: true; assets: UiAsset[] } | { ok: false; error: UiBuildError };

export interface UiBundlesOptions {
  /** langgraph.json `ui`: graph id → module path. */
  defs: Record<string, string>;
  /** langgraph.json `ui_config.shared`. */
  shared: string[];
  projectDir: string;
  /** Where built bundles are cached (under the server's data directory). */
  cacheDir: string;
  logger: Logger;
}

export class UiBundles {
  private readonly builds = new Map<string, Promise<UiBundleState>>();

  private constructor(private readonly options: UiBundlesOptions) {}

  /** Start every graph's build without waiting for any. */
  static start(options: UiBundlesOptions): UiBundles {
    const bundles = new UiBundles(options);
    const cache = new UiBuildCache(options.cacheDir, options.projectDir);
    for (const [graphId, modulePath] of Object.entries(options.defs)) {
      const request: UiBuildRequest = { graphId, projectDir: options.projectDir, modulePath, shared: options.shared };
      // deferred a tick: esbuild's start (a child process) is not on the start-up path either
      const build = new Promise<void>((r) => setImmediate(r)).then(() => bundles.build(request, cache));
      bundles.builds.set(graphId, build);
    }
    return bundles;
  }

  /** Whether langgraph.json declares a UI for the graph. */
  has(graphId: string): boolean {
    return this.builds.has(graphId);
  }

  graphIds(): string[] {
    return [...this.builds.keys()];
  }

  /** The graph's bundle once built (or its build error); undefined for a graph without a UI. */
  get(graphId: string): Promise<UiBundleState> | undefined {
    return this.builds.get(graphId);
  }

  /** Resolves when every build has finished (they never reject). */
  async settled(): Promise<void> {
    await Promise.all(this.builds.values());
  }

  private async build(request: UiBuildRequest, cache: UiBuildCache): Promise<UiBundleState> {
    const { logger } = this.options;
    const recipe = recipeOf(request);
    const where = { graph: request.graphId, file: path.resolve(request.projectDir, request.modulePath) };
    try {
      const cached = await cache.load(recipe).catch(() => undefined);
      if (cached) {
        logger.info({ ...where, assets: cached.map((a) => a.hashedName), cached: true }, "generative UI bundle ready (from the build cache)");
        return { ok: true, assets: cached };
      }
      const startedAt = Date.now();
      const output = await buildUiBundle(request);
      logger.info({ ...where, assets: output.assets.map((a) => a.hashedName), ms: Date.now() - startedAt }, "generative UI bundle built");
      await cache.store(recipe, output, startedAt).catch((err: unknown) => logger.warn({ err, cacheDir: this.options.cacheDir }, "could not cache the generative UI bundle"));
      return { ok: true, assets: output.assets };
    } catch (err) {
      const error = err instanceof UiBuildError ? err : new UiBuildError(request.graphId, request.modulePath, [(err as Error).message]);
      logger.error({ ...where, errors: error.problems }, `generative UI bundle of graph "${request.graphId}" failed to build: ${error.problems.join("; ")}`);
      return { ok: false, error };
    }
  }
}
