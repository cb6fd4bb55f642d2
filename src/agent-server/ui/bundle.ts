/**
 * Bundles one graph's generative-UI module (langgraph.json `ui`) for the browser, in the form the
 * SDK's `LoadExternalComponent` (`@langchain/langgraph-sdk/react-ui`) loads: a classic script (not
 * an ES module: the client inserts it as `<script src onload=…>`) that defines the global
 * `__LGUI_<graph>` with `render(name, shadowRootId)`, plus the CSS the module imports as a separate
 * stylesheet. React, the SDK and `ui_config.shared` packages are not bundled: the page provides
 * them through `globalThis[Symbol.for("LGUI_REQUIRE")]`, which the SDK's react-ui installs, so the
 * component renders with the page's own React.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import * as esbuild from "esbuild";
import { TAILWIND_VERSION, tailwindPlugin } from "./tailwind.js";

/** Packages the page always shares with a UI bundle (the SDK's react-ui provides them). */
export const ALWAYS_SHARED = ["react", "react-dom", "@langchain/langgraph-sdk", "@langchain/langgraph-sdk/react-ui"];

const ENTRY_NS = "berth-ui-entry";
const SHARED_NS = "berth-ui-shared";

export interface UiBuildRequest {
  graphId: string;
  /** The project directory (the config file's): the module path is relative to it. */
  projectDir: string;
  /** The module as langgraph.json names it, e.g. `./src/agent/ui.tsx`. */
  modulePath: string;
  /** `ui_config.shared`: further packages the page provides. */
  shared: string[];
}

export interface UiAsset {
  /** The name the stable entry has (`entrypoint.js`, `entrypoint.css`), as on LangGraph Platform. */
  name: string;
  /** The content-addressed name (`entrypoint.<hash>.js`): what the HTML snippet links, cacheable forever. */
  hashedName: string;
  contents: Buffer;
  /** Hex SHA-256 of the contents. */
  sha256: string;
}

export interface UiBuildOutput {
  assets: UiAsset[];
  /** Project files the bundle was built from (relative to the project), for the build cache. */
  inputs: string[];
}

/** A bundle that could not be built: what esbuild said, each message with its file and position. */
export class UiBuildError extends Error {
  constructor(
    readonly graphId: string,
    readonly modulePath: string,
    readonly problems: string[],
  ) {
    super(`the UI module ${modulePath} of graph "${graphId}" does not build: ${problems.join("; ")}`);
    this.name = "UiBuildError";
  }
}

/** The browser global of a graph's bundle, as the platform names it (the client's onload calls it). */
export function globalNameOf(graphId: string): string {
  return `__LGUI_${graphId.replace(/[^a-zA-Z0-9]/g, "_")}`;
}

/** The module path relative to the project, `./`-prefixed; undefined when it leaves the project. */
export function projectRelative(projectDir: string, modulePath: string): string | undefined {
  const rel = path.relative(projectDir, path.resolve(projectDir, modulePath)).split(path.sep).join("/");
  if (rel === "" || rel.startsWith("../") || rel === ".." || path.isAbsolute(rel)) return undefined;
  return `./${rel}`;
}

export function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** `react`, `react/jsx-runtime`, `@scope/pkg/sub`… as a package among `shared`. */
function sharedMatcher(shared: string[]): RegExp {
  const names = [...new Set(shared)].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^(?:${names.join("|")})(?:/.*)?$`);
}

/**
 * The entry: imports the user's module (its default export maps component names to components,
 * as on the platform; without one, its named exports do) and hands the requested component to the
 * client's component store, which renders it into the shadow root the client made.
 */
function entrySource(relModule: string): string {
  return `import * as userModule from ${JSON.stringify(relModule)};
const components = userModule.default != null ? userModule.default : userModule;
const STORE = Symbol.for("LGUI_EXT_STORE");
export function render(name, shadowRootId) {
  const host = document.getElementById(shadowRootId);
  const root = host && host.shadowRoot;
  if (!root) throw new Error("generative UI: no shadow root with id " + JSON.stringify(shadowRootId));
  const component = Object.prototype.hasOwnProperty.call(components, name) ? components[name] : undefined;
  if (component == null) throw new Error("generative UI: " + ${JSON.stringify(relModule)} + " has no component named " + JSON.stringify(name));
  const store = window[STORE];
  if (!store) throw new Error("generative UI: import @langchain/langgraph-sdk/react-ui in the page before loading a component");
  const target = document.createElement("div");
  root.appendChild(target);
  store.respond(shadowRootId, component, target);
}
`;
}

function sharedSource(name: string): string {
  return `const provide = globalThis[Symbol.for("LGUI_REQUIRE")];
if (typeof provide !== "function") throw new Error("generative UI: the page must import @langchain/langgraph-sdk/react-ui, which provides " + ${JSON.stringify(name)});
module.exports = provide(${JSON.stringify(name)});
`;
}

function plugins(relModule: string, projectDir: string, shared: string[]): esbuild.Plugin[] {
  const isShared = sharedMatcher(shared);
  return [
    {
      name: "berth-ui-entry",
      setup(build) {
        build.onResolve({ filter: /^berth-ui-entry$/ }, () => ({ path: "entry", namespace: ENTRY_NS }));
        build.onLoad({ filter: /.*/, namespace: ENTRY_NS }, () => ({ contents: entrySource(relModule), resolveDir: projectDir, loader: "js" }));
      },
    },
    {
      name: "berth-ui-shared",
      setup(build) {
        build.onResolve({ filter: isShared }, (args) => ({ path: args.path, namespace: SHARED_NS }));
        build.onLoad({ filter: /.*/, namespace: SHARED_NS }, (args) => ({ contents: sharedSource(args.path), loader: "js" }));
      },
    },
    tailwindPlugin(projectDir),
  ];
}

function describeMessage(m: esbuild.Message): string {
  const at = m.location ? `${m.location.file}:${m.location.line}:${m.location.column}: ` : "";
  return `${at}${m.text}`;
}

/** Build one graph's bundle (in memory). Throws `UiBuildError` with esbuild's messages. */
export async function buildUiBundle(req: UiBuildRequest): Promise<UiBuildOutput> {
  const relModule = projectRelative(req.projectDir, req.modulePath);
  if (!relModule) throw new UiBuildError(req.graphId, req.modulePath, [`the UI module must be inside the project directory ${req.projectDir}`]);
  let result: esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await esbuild.build({
      absWorkingDir: req.projectDir,
      entryPoints: ["berth-ui-entry"],
      entryNames: "entrypoint",
      // write: false keeps the output in memory; outdir only names the files
      outdir: path.join(req.projectDir, ".berth-ui"),
      write: false,
      bundle: true,
      metafile: true,
      platform: "browser",
      target: "es2020",
      format: "iife",
      globalName: globalNameOf(req.graphId),
      jsx: "automatic",
      logLevel: "silent",
      plugins: plugins(relModule, req.projectDir, [...ALWAYS_SHARED, ...req.shared]),
    });
  } catch (err) {
    const failure = err as Partial<esbuild.BuildFailure>;
    if (Array.isArray(failure.errors) && failure.errors.length) throw new UiBuildError(req.graphId, relModule, failure.errors.map(describeMessage));
    throw new UiBuildError(req.graphId, relModule, [(err as Error).message]);
  }
  const assets = result.outputFiles.map((f) => {
    const contents = Buffer.from(f.contents);
    const name = path.basename(f.path);
    const hash = sha256(contents);
    const ext = path.extname(name);
    return { name, hashedName: `${name.slice(0, -ext.length)}.${hash.slice(0, 16)}${ext}`, contents, sha256: hash };
  });
  const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith(`${ENTRY_NS}:`) && !p.startsWith(`${SHARED_NS}:`));
  return { assets, inputs };
}

/** Everything besides the project's files that decides a bundle's bytes: part of the cache key. */
export function recipeOf(req: UiBuildRequest): string {
  const relModule = projectRelative(req.projectDir, req.modulePath) ?? req.modulePath;
  // bump the format when the entry, the shared shim or the build options change
  return JSON.stringify({ format: 2, esbuild: esbuild.version, tailwind: TAILWIND_VERSION, graph: req.graphId, module: relModule, shared: [...new Set(req.shared)].sort() });
}
