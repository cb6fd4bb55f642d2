/**
 * Tailwind CSS (v4) for UI bundles, as the JS platform's UI bundler runs it: a stylesheet that
 * imports Tailwind (`@import "tailwindcss";`, or a part of it such as `tailwindcss/utilities`)
 * is compiled by `@tailwindcss/postcss`, which scans the project's sources for class names and
 * emits the utilities they use. Other stylesheets are left to esbuild: the only cost for a project
 * without Tailwind is reading its CSS files once more for the check, and Tailwind and PostCSS are
 * not even loaded.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type * as esbuild from "esbuild";

/** The Tailwind version Berth compiles with: part of the build cache key. */
export const TAILWIND_VERSION: string = (createRequire(import.meta.url)("tailwindcss/package.json") as { version: string }).version;

/** `@import "tailwindcss"` / `@import 'tailwindcss/utilities.css' layer(utilities)` / `@tailwind utilities`. */
const USES_TAILWIND = /@import\s+(?:url\(\s*)?["']tailwindcss(?:\/[^"']*)?["']|@tailwind\s/;

export function usesTailwind(css: string): boolean {
  return USES_TAILWIND.test(css);
}

interface CssSyntaxError {
  name: "CssSyntaxError";
  reason: string;
  file?: string;
  line?: number;
  column?: number;
}

function toMessage(err: unknown, file: string, projectDir: string): esbuild.PartialMessage {
  const e = err as Partial<CssSyntaxError> & { message?: string };
  const at = e.file ?? file;
  const location = { file: path.relative(projectDir, at).split(path.sep).join("/"), line: e.line ?? 0, column: Math.max(0, (e.column ?? 1) - 1) };
  return { text: `Tailwind CSS: ${e.name === "CssSyntaxError" && e.reason ? e.reason : (e.message ?? String(err))}`, location };
}

/** An esbuild plugin compiling the project's Tailwind stylesheets; `projectDir` is where class names are looked for. */
export function tailwindPlugin(projectDir: string): esbuild.Plugin {
  return {
    name: "berth-ui-tailwind",
    setup(build) {
      build.onLoad({ filter: /\.css$/, namespace: "file" }, async (args) => {
        const css = await readFile(args.path, "utf8");
        if (!usesTailwind(css)) return undefined;
        try {
          // loaded on first use, so projects without Tailwind never pay for it
          const [{ default: postcss }, { default: tailwindcss }] = await Promise.all([import("postcss"), import("@tailwindcss/postcss")]);
          const result = await postcss([tailwindcss({ base: projectDir })]).process(css, { from: args.path });
          const watchFiles = result.messages.filter((m) => m.type === "dependency" && typeof m.file === "string").map((m) => m.file as string);
          return { contents: result.css, loader: "css", resolveDir: path.dirname(args.path), watchFiles };
        } catch (err) {
          return { errors: [toMessage(err, args.path, projectDir)] };
        }
      });
    },
  };
}
