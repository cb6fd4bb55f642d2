/**
 * The on-disk cache of UI bundles, under the server's data directory: a restart with unchanged UI
 * sources serves the previous build without running esbuild. An entry is keyed by the build recipe
 * (graph, module, shared packages, esbuild version) and holds the SHA-256 of every project file the
 * bundle was built from; it is used only while each of those files still has that hash.
 * Processes sharing a data directory write entries atomically (a finished directory is renamed in).
 */
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { sha256, type UiAsset, type UiBuildOutput } from "./bundle.js";

interface Manifest {
  recipe: string;
  /** Project-relative path → SHA-256 of its contents when the bundle was built. */
  inputs: Record<string, string>;
  assets: { name: string; hashedName: string; sha256: string }[];
}

export class UiBuildCache {
  constructor(
    private readonly cacheDir: string,
    private readonly projectDir: string,
  ) {}

  private entryDir(recipe: string): string {
    return path.join(this.cacheDir, sha256(recipe).slice(0, 32));
  }

  private async hashOf(rel: string): Promise<string | undefined> {
    try {
      return sha256(await readFile(path.resolve(this.projectDir, rel)));
    } catch {
      return undefined;
    }
  }

  /** The cached bundle of `recipe`, if its sources are unchanged (and the entry is intact). */
  async load(recipe: string): Promise<UiAsset[] | undefined> {
    const dir = this.entryDir(recipe);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8")) as Manifest;
    } catch {
      return undefined;
    }
    if (manifest.recipe !== recipe) return undefined;
    for (const [rel, hash] of Object.entries(manifest.inputs)) {
      if ((await this.hashOf(rel)) !== hash) return undefined;
    }
    const assets: UiAsset[] = [];
    for (const a of manifest.assets) {
      const contents = await readFile(path.join(dir, a.hashedName)).catch(() => undefined);
      if (!contents || sha256(contents) !== a.sha256) return undefined;
      assets.push({ ...a, contents });
    }
    return assets;
  }

  /**
   * Remember a build that started at `startedAtMs`. A source modified since then may differ from
   * what esbuild read, so such a build is not cached (the next start builds again).
   */
  async store(recipe: string, output: UiBuildOutput, startedAtMs: number): Promise<void> {
    const inputs: Record<string, string> = {};
    for (const rel of output.inputs) {
      const file = path.resolve(this.projectDir, rel);
      const modified = await stat(file).then((s) => s.mtimeMs, () => Infinity);
      const hash = await this.hashOf(rel);
      if (hash === undefined || modified >= startedAtMs) return;
      inputs[rel] = hash;
    }
    await mkdir(this.cacheDir, { recursive: true });
    const tmp = await mkdtemp(path.join(this.cacheDir, "tmp-"));
    try {
      for (const a of output.assets) await writeFile(path.join(tmp, a.hashedName), a.contents);
      const manifest: Manifest = { recipe, inputs, assets: output.assets.map(({ name, hashedName, sha256: hash }) => ({ name, hashedName, sha256: hash })) };
      await writeFile(path.join(tmp, "manifest.json"), JSON.stringify(manifest));
      const dir = this.entryDir(recipe);
      await rm(dir, { recursive: true, force: true });
      await rename(tmp, dir);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}
