/**
 * `store.index.embed` of langgraph.json, resolved at start-up into something that embeds texts:
 * - `"provider:model"` (`"openai:text-embedding-3-small"`): LangChain's embeddings class of that
 *   provider, from its integration package (`@langchain/openai`…) installed in the project or in Berth;
 * - `"./src/embed.ts:embed"`: an export of the project, either a function `(texts) => vectors`
 *   (sync or async) or a LangChain `Embeddings` object (`embedDocuments`, optionally `embedQuery`).
 * Anything that cannot work (unknown provider, package not installed, missing file or export, an
 * export of the wrong kind) fails start-up with a message naming `store.index.embed`.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { resolve as resolveImport } from "import-meta-resolve";
import { splitModuleSpec } from "../../config/module-spec.js";
import { importUserModule } from "../../graphs/user-module.js";
import { parseFieldPath } from "./field-paths.js";

export interface Embedder {
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

export class EmbedConfigError extends Error {
  constructor(message: string, key = "store.index.embed") {
    super(`${key}: ${message}`);
    this.name = "EmbedConfigError";
  }
}

/** The providers LangChain's `initEmbeddings` knows, with the package and class that serve them. */
const PROVIDERS: Record<string, { pkg: string; className: string }> = {
  openai: { pkg: "@langchain/openai", className: "OpenAIEmbeddings" },
  azure_openai: { pkg: "@langchain/openai", className: "AzureOpenAIEmbeddings" },
  cohere: { pkg: "@langchain/cohere", className: "CohereEmbeddings" },
  "google-genai": { pkg: "@langchain/google-genai", className: "GoogleGenerativeAIEmbeddings" },
  "google-vertexai": { pkg: "@langchain/google-vertexai", className: "VertexAIEmbeddings" },
  mistralai: { pkg: "@langchain/mistralai", className: "MistralAIEmbeddings" },
  ollama: { pkg: "@langchain/ollama", className: "OllamaEmbeddings" },
  bedrock: { pkg: "@langchain/aws", className: "BedrockEmbeddings" },
};

/** A module spec names a file (`./x.ts:fn`, `/abs/x.js:fn`); anything else is `provider:model`. */
function isModuleSpec(spec: string): boolean {
  const { file } = splitModuleSpec(spec);
  return /^\.{0,2}[\\/]/.test(file) || /\.(c|m)?[jt]sx?$/.test(file) || path.isAbsolute(file);
}

export async function resolveEmbedder(spec: string, configDir: string): Promise<Embedder> {
  return isModuleSpec(spec) ? fromModule(spec, configDir) : fromProvider(spec, configDir);
}

async function fromProvider(spec: string, configDir: string): Promise<Embedder> {
  const sep = spec.indexOf(":");
  if (sep <= 0 || sep === spec.length - 1) {
    throw new EmbedConfigError(`"${spec}" is neither "provider:model" (e.g. "openai:text-embedding-3-small") nor a module path like "./src/embed.ts:embed"`);
  }
  const provider = spec.slice(0, sep).toLowerCase();
  const model = spec.slice(sep + 1);
  const known = PROVIDERS[provider];
  if (!known) throw new EmbedConfigError(`unknown embedding provider "${provider}" (known: ${Object.keys(PROVIDERS).join(", ")}; or name a function of your project, "./src/embed.ts:embed")`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(resolvePackage(known.pkg, configDir))) as Record<string, unknown>;
  } catch (err) {
    throw new EmbedConfigError(`"${spec}" needs the package ${known.pkg}, which could not be loaded (${(err as Error).message.split("\n")[0]}); add it to your project's dependencies`);
  }
  const Class = mod[known.className] as (new (fields: Record<string, unknown>) => Partial<Embedder>) | undefined;
  if (typeof Class !== "function") throw new EmbedConfigError(`${known.pkg} has no ${known.className} export (is it an old version?)`);
  let instance: Partial<Embedder>;
  try {
    instance = new Class({ model });
  } catch (err) {
    // e.g. a missing API key: the class refuses to be built without one
    throw new EmbedConfigError(`cannot create ${known.className} for "${spec}": ${(err as Error).message}`);
  }
  return fromEmbeddingsObject(instance, spec);
}

/** The project's copy of a package first (it may pin its own), then Berth's. */
function resolvePackage(pkg: string, configDir: string): string {
  try {
    return resolveImport(pkg, pathToFileURL(path.join(configDir, "langgraph.json")).href);
  } catch {
    return pkg;
  }
}

async function fromModule(spec: string, configDir: string): Promise<Embedder> {
  const { file, exportName } = splitModuleSpec(spec);
  const absolute = path.resolve(configDir, file);
  const mod = await importUserModule(absolute, (f) =>
    new EmbedConfigError(
      f.kind === "not-found" ? `${absolute} does not exist` : f.kind === "unresolved" ? `cannot load ${absolute}: ${f.detail}` : `importing ${absolute} failed: ${f.error.message}`,
    ),
  );
  const value = mod[exportName];
  if (value === undefined) throw new EmbedConfigError(`${file} has no export "${exportName}" (exports: ${Object.keys(mod).join(", ") || "none"})`);
  if (typeof value === "function") {
    const fn = value as (texts: string[]) => unknown;
    return {
      embedDocuments: async (texts) => (await fn(texts)) as number[][],
      embedQuery: async (text) => ((await fn([text])) as number[][])[0] ?? [],
    };
  }
  return fromEmbeddingsObject(value, spec);
}

function fromEmbeddingsObject(value: unknown, spec: string): Embedder {
  const e = value as Partial<Embedder> | null;
  if (typeof e !== "object" || e === null || typeof e.embedDocuments !== "function") {
    throw new EmbedConfigError(`"${spec}" is neither a function (texts: string[]) => number[][] nor an Embeddings object with embedDocuments()`);
  }
  const docs = e.embedDocuments.bind(e);
  const query = typeof e.embedQuery === "function" ? e.embedQuery.bind(e) : async (text: string) => (await docs([text]))[0] ?? [];
  return { embedDocuments: docs, embedQuery: query };
}

/** `store.index` of langgraph.json, checked and with its embedder ready (fails start-up when it cannot work). */
export async function resolveStoreIndex(
  index: { embed: string; dims: number; fields?: string[] },
  configDir: string,
): Promise<{ embedder: Embedder; dims: number; fields: string[] }> {
  const fields = index.fields ?? ["$"];
  for (const f of fields) {
    try {
      parseFieldPath(f);
    } catch (err) {
      throw new EmbedConfigError((err as Error).message, "store.index.fields");
    }
  }
  return { embedder: await resolveEmbedder(index.embed, configDir), dims: index.dims, fields };
}
