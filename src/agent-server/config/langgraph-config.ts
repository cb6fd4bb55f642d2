/**
 * The `langgraph.json`-compatible configuration file: parsing and validation (pure), and reading
 * it from disk. Existing LangGraph.js projects deploy unchanged; keys we do not know produce a
 * warning with a suggestion, and invalid values fail start-up with a message naming the key.
 */
import { readFile } from "node:fs/promises";
import { dependenciesSchema, dockerfileLinesSchema, nodeVersionSchema } from "./image-keys.js";
import { splitModuleSpec } from "./module-spec.js";
import path from "node:path";
import { parse as parseDotenv } from "dotenv";
import { z } from "zod";
import { closestMatch } from "../../shared/suggest.js";
import { checkpointerTtlSchema, storeTtlSchema, ttlSettings, type TtlSettings } from "./ttl-config.js";

const graphSpecSchema = z.union([
  z.string().min(1, "must be a path like ./src/agent.ts:graph"),
  z.object({ path: z.string().min(1), description: z.string().optional() }).loose(),
]);

const corsSchema = z
  .object({
    allow_origins: z.array(z.string()).optional(),
    allow_methods: z.array(z.string()).optional(),
    allow_headers: z.array(z.string()).optional(),
    allow_credentials: z.boolean().optional(),
    allow_origin_regex: z.string().optional(),
    expose_headers: z.array(z.string()).optional(),
    max_age: z.number().int().optional(),
  })
  .loose();

const httpSchema = z
  .object({
    app: z.string().optional(),
    disable_a2a: z.boolean().optional(),
    disable_assistants: z.boolean().optional(),
    disable_threads: z.boolean().optional(),
    disable_runs: z.boolean().optional(),
    disable_store: z.boolean().optional(),
    disable_meta: z.boolean().optional(),
    disable_mcp: z.boolean().optional(),
    disable_webhooks: z.boolean().optional(),
    // no `/ui` routes and no bundle builds, even when `ui` names modules
    disable_ui: z.boolean().optional(),
    cors: corsSchema.optional(),
    configurable_headers: z.object({ includes: z.array(z.string()).optional(), excludes: z.array(z.string()).optional() }).loose().optional(),
    mount_prefix: z.string().optional(),
  })
  .loose();

export const langgraphConfigSchema = z
  .object({
    $schema: z.string().optional(),
    graphs: z.record(z.string(), graphSpecSchema).refine((g) => Object.keys(g).length > 0, "must name at least one graph"),
    env: z.union([z.record(z.string(), z.string()), z.string()]).optional(),
    dependencies: dependenciesSchema.optional(),
    node_version: nodeVersionSchema.optional(),
    http: httpSchema.optional(),
    store: z
      .object({
        index: z
          .object({
            embed: z.string().min(1, 'must name an embedding model ("openai:text-embedding-3-small") or a function ("./src/embed.ts:embed")'),
            dims: z.number().int().positive(),
            fields: z.array(z.string().min(1)).optional(),
          })
          .loose()
          .optional(),
        ttl: storeTtlSchema.optional(),
      })
      .loose()
      .optional(),
    checkpointer: z.object({ ttl: checkpointerTtlSchema.optional() }).loose().optional(),
    auth: z.object({ path: z.string().optional(), disable_studio_auth: z.boolean().optional() }).loose().optional(),
    ui: z.record(z.string(), z.string().min(1, "must be a path like ./src/agent/ui.tsx")).optional(),
    ui_config: z.object({ shared: z.array(z.string().min(1)).optional() }).loose().optional(),
    node_loader: z.string().optional(),
    dockerfile_lines: dockerfileLinesSchema.optional(),
    image_distro: z.string().optional(),
    base_image: z.string().optional(),
    api_version: z.string().optional(),
    keep_pkg_tools: z.union([z.boolean(), z.array(z.string())]).optional(),
    webhooks: z.object({}).loose().optional(),
  })
  .loose();

export type LanggraphConfig = z.infer<typeof langgraphConfigSchema>;

const TOP_LEVEL_KEYS = Object.keys(langgraphConfigSchema.shape);
/** Keys of the LangGraph format we read but do not act on yet: a warning, never silence. */
const NOT_SUPPORTED_YET: string[] = [];
const STORE_KEYS = ["index", "ttl"];
const HTTP_KEYS = Object.keys(httpSchema.shape);

export interface GraphSpec {
  graphId: string;
  /** Absolute path of the module. */
  file: string;
  /** Export name; `default` when the spec names none. */
  exportName: string;
  description?: string;
}

export interface ResolvedConfig {
  configPath: string;
  configDir: string;
  raw: LanggraphConfig;
  graphs: GraphSpec[];
  /** Environment variables the config asks for (from `env`). */
  env: Record<string, string>;
  disableA2a: boolean;
  /** `store.ttl` and `checkpointer.ttl`, with their defaults. */
  ttl: TtlSettings;
  warnings: string[];
}

export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigFileError";
  }
}

/** Validate a parsed config object. Pure apart from nothing: `env` files are read by the caller. */
export function parseLanggraphConfig(
  value: unknown,
  configPath: string,
): { config: LanggraphConfig; graphs: GraphSpec[]; warnings: string[] } {
  const where = path.basename(configPath);
  const parsed = langgraphConfigSchema.safeParse(value);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(top level)"}: ${i.message}`);
    throw new ConfigFileError(`invalid ${where}:\n  ${lines.join("\n  ")}`);
  }
  const config = parsed.data;
  const warnings: string[] = [];
  for (const key of Object.keys(value as object)) {
    if (!TOP_LEVEL_KEYS.includes(key)) warnings.push(unknownKeyWarning(where, key, key, TOP_LEVEL_KEYS));
  }
  for (const key of Object.keys(config.http ?? {})) {
    if (!HTTP_KEYS.includes(key)) warnings.push(unknownKeyWarning(where, `http.${key}`, key, HTTP_KEYS));
  }
  for (const key of Object.keys(config.store ?? {})) {
    if (!STORE_KEYS.includes(key)) warnings.push(unknownKeyWarning(where, `store.${key}`, key, STORE_KEYS));
  }
  for (const key of NOT_SUPPORTED_YET) {
    const [top, sub] = key.split(".");
    const v = (config as Record<string, any>)[top!];
    if (v !== undefined && (sub === undefined || v?.[sub] !== undefined)) {
      warnings.push(`${where}: "${key}" is not supported by Berth yet and is ignored`);
    }
  }
  const configDir = path.dirname(path.resolve(configPath));
  const graphs = Object.entries(config.graphs).map(([graphId, spec]) => {
    const specPath = typeof spec === "string" ? spec : spec.path;
    const description = typeof spec === "string" ? undefined : spec.description;
    const { file, exportName } = splitModuleSpec(specPath);
    if (!file) throw new ConfigFileError(`invalid ${where}: graphs.${graphId}: the path is empty`);
    if (!exportName) throw new ConfigFileError(`invalid ${where}: graphs.${graphId}: the export name after ':' is empty`);
    return { graphId, file: path.resolve(configDir, file), exportName, description };
  });
  for (const [graphId, uiPath] of Object.entries(config.ui ?? {})) {
    // bundled from the project's files, as on LangGraph Platform
    const rel = path.relative(configDir, path.resolve(configDir, uiPath));
    if (rel === "" || rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
      throw new ConfigFileError(`invalid ${where}: ui.${graphId}: ${JSON.stringify(uiPath)} is outside the project directory (${configDir})`);
    }
    if (!(graphId in config.graphs)) warnings.push(`${where}: ui.${graphId}: no graph "${graphId}" in "graphs" (the UI is served under /ui/${graphId} all the same)`);
  }
  return { config, graphs, warnings };
}

function unknownKeyWarning(where: string, shown: string, key: string, known: string[]): string {
  const guess = closestMatch(key, known);
  return `${where}: unknown key "${shown}" is ignored${guess ? ` (did you mean "${guess}"?)` : ""}`;
}

/** Read, parse and validate a config file, and read its `env` file if it names one. */
export async function loadLanggraphConfig(configPath: string): Promise<ResolvedConfig> {
  const absolute = path.resolve(configPath);
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigFileError(
      code === "ENOENT"
        ? `config file not found: ${absolute} (pass --config <file>)`
        : `cannot read config file ${absolute}: ${(err as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(`${absolute} is not valid JSON: ${(err as Error).message}`);
  }
  const { config, graphs, warnings } = parseLanggraphConfig(value, absolute);
  const configDir = path.dirname(absolute);
  let env: Record<string, string> = {};
  if (typeof config.env === "string") {
    const envPath = path.resolve(configDir, config.env);
    try {
      env = parseDotenv(await readFile(envPath, "utf8"));
    } catch (err) {
      // Templates name a git-ignored `.env` (a copy of `.env.example`): a checkout deployed from git
      // has none, and its variables come as secrets instead. LangGraph's servers go on without it too.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new ConfigFileError(`env: cannot read ${envPath}: ${(err as Error).message}`);
      warnings.push(`${path.basename(absolute)}: env file ${envPath} does not exist; going on with the process environment only`);
    }
  } else if (config.env) {
    env = config.env;
  }
  return { configPath: absolute, configDir, raw: config, graphs, env, disableA2a: config.http?.disable_a2a === true, ttl: ttlSettings(config), warnings };
}
