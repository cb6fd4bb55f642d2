/** langgraph.json parsing and loading: graph specs, warnings with suggestions, errors naming the key. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigFileError, loadLanggraphConfig, parseLanggraphConfig } from "../../src/agent-server/config/langgraph-config.js";
import { ttlSettings } from "../../src/agent-server/config/ttl-config.js";

const CONFIG = path.join(os.tmpdir(), "project", "langgraph.json");
const DIR = path.dirname(CONFIG);

function parseError(value: unknown): string {
  try {
    parseLanggraphConfig(value, CONFIG);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigFileError);
    return (err as Error).message;
  }
  throw new Error("expected the config to be rejected");
}

describe("parseLanggraphConfig", () => {
  it("reads string graph specs with an export name, resolved beside the config", () => {
    const { graphs, warnings } = parseLanggraphConfig({ graphs: { agent: "./src/agent.ts:graph" } }, CONFIG);
    expect(graphs).toEqual([{ graphId: "agent", file: path.join(DIR, "src/agent.ts"), exportName: "graph", description: undefined }]);
    expect(warnings).toEqual([]);
  });

  it("reads {path, description} specs", () => {
    const { graphs } = parseLanggraphConfig(
      { graphs: { helper: { path: "./agents/helper.js:makeGraph", description: "Helps." } } },
      CONFIG,
    );
    expect(graphs).toEqual([{ graphId: "helper", file: path.join(DIR, "agents/helper.js"), exportName: "makeGraph", description: "Helps." }]);
  });

  it("uses the default export when the spec names none", () => {
    const { graphs } = parseLanggraphConfig({ graphs: { a: "./a.ts", b: { path: "../shared/b.js" } } }, CONFIG);
    expect(graphs.map((g) => [g.graphId, g.file, g.exportName])).toEqual([
      ["a", path.join(DIR, "a.ts"), "default"],
      ["b", path.resolve(DIR, "../shared/b.js"), "default"],
    ]);
  });

  it("keeps several graphs in order and accepts known optional keys without warnings", () => {
    const { graphs, warnings, config } = parseLanggraphConfig(
      {
        $schema: "https://langgra.ph/schema.json",
        graphs: { one: "./one.ts:g", two: "./two.ts:g" },
        env: { A: "1" },
        dependencies: ["."],
        node_version: "20",
        http: {
          disable_a2a: true,
          cors: { allow_origins: ["https://x.example"] },
          // acted on now (test/agent-server/http-app.test.ts), so no "not supported" warning
          app: "./app.ts:app",
          mount_prefix: "/api",
          configurable_headers: { includes: ["x-*"] },
          disable_ui: true,
        },
      },
      CONFIG,
    );
    expect(graphs.map((g) => g.graphId)).toEqual(["one", "two"]);
    expect(warnings).toEqual([]);
    expect(config.http?.disable_a2a).toBe(true);
  });

  it("reads store.ttl and checkpointer.ttl (acted on: test/agent-server/ttl.test.ts) without a warning, with the platform's defaults", () => {
    const { warnings, config } = parseLanggraphConfig(
      {
        graphs: { a: "./a.ts:g" },
        store: { ttl: { default_ttl: 30, sweep_interval_minutes: 5 } },
        checkpointer: { ttl: { default_ttl: 43200 } },
      },
      CONFIG,
    );
    expect(warnings).toEqual([]);
    expect(config.store?.ttl).toEqual({ default_ttl: 30, refresh_on_read: true, sweep_interval_minutes: 5 });
    expect(config.checkpointer?.ttl).toEqual({ strategy: "delete", default_ttl: 43200 });
    expect(ttlSettings({})).toEqual({
      store: { defaultTtl: null, refreshOnRead: true, sweepIntervalMinutes: 60 },
      threads: { defaultTtl: null, sweepIntervalMinutes: 60 },
    });
  });

  it("warns about unknown keys with a 'did you mean' suggestion, top level and under http", () => {
    const { warnings, graphs } = parseLanggraphConfig(
      { graphs: { a: "./a.ts:g" }, dependecies: ["."], http: { disable_a2: true } },
      CONFIG,
    );
    expect(graphs).toHaveLength(1);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('"dependecies"');
    expect(warnings[0]).toContain('did you mean "dependencies"');
    expect(warnings[1]).toContain('"http.disable_a2"');
    expect(warnings[1]).toContain('did you mean "disable_a2a"');
  });

  it("ui and ui_config are acted on (test/agent-server/generative-ui.test.ts): no warning, modules stay in the project", () => {
    const ok = parseLanggraphConfig({ graphs: { a: "./a.ts:g" }, ui: { a: "./src/ui.tsx" }, ui_config: { shared: ["clsx"] } }, CONFIG);
    expect(ok.warnings).toEqual([]);
    expect(ok.config.ui_config?.shared).toEqual(["clsx"]);
    const orphan = parseLanggraphConfig({ graphs: { a: "./a.ts:g" }, ui: { other: "./ui.tsx" } }, CONFIG);
    expect(orphan.warnings).toEqual([expect.stringContaining('ui.other: no graph "other"')]);
    expect(parseError({ graphs: { a: "./a.ts" }, ui: { a: "../elsewhere/ui.tsx" } })).toMatch(/ui\.a: "\.\.\/elsewhere\/ui\.tsx" is outside the project directory/);
    expect(parseError({ graphs: { a: "./a.ts" }, ui: { a: "/abs/ui.tsx" } })).toMatch(/ui\.a:.*outside the project/);
    expect(parseError({ graphs: { a: "./a.ts" }, ui: { a: "" } })).toMatch(/ui\.a/);
    expect(parseError({ graphs: { a: "./a.ts" }, ui_config: { shared: "react" } })).toMatch(/ui_config\.shared/);
  });

  it("acts on store.index (no warning) and warns about unknown store keys", () => {
    const index = { embed: "openai:text-embedding-3-small", dims: 1536, fields: ["text"] };
    const indexed = parseLanggraphConfig({ graphs: { a: "./a.ts:g" }, store: { index } }, CONFIG);
    expect(indexed.warnings).toEqual([]);
    expect(indexed.config.store?.index).toEqual(index);
    const { warnings } = parseLanggraphConfig({ graphs: { a: "./a.ts:g" }, store: { index, ttl: { default_ttl: 5 }, indx: {} } }, CONFIG);
    expect(warnings).toHaveLength(1);
    expect(warnings.find((w) => w.includes('"store.indx"'))).toContain('did you mean "index"');
    expect(parseError({ graphs: { a: "./a.ts:g" }, store: { index: { embed: "openai:x", dims: 1.5 } } })).toMatch(/store\.index\.dims/);
    expect(parseError({ graphs: { a: "./a.ts:g" }, store: { index: { dims: 8 } } })).toMatch(/store\.index\.embed/);
  });

  it("warns without a suggestion when nothing is close", () => {
    const { warnings } = parseLanggraphConfig({ graphs: { a: "./a.ts:g" }, qqqqqqqqqqqqqqqqqqqqqq: 1 }, CONFIG);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("qqqqqqqqqqqqqqqqqqqqqq");
    expect(warnings[0]).not.toContain("did you mean");
  });

  it("invalid values fail naming the key", () => {
    expect(parseError({ graphs: 5 })).toMatch(/graphs/);
    expect(parseError({ graphs: { a: 5 } })).toMatch(/graphs\.a/);
    expect(parseError({ graphs: { a: "" } })).toMatch(/graphs\.a/);
    expect(parseError({ graphs: { a: { description: "no path" } } })).toMatch(/graphs\.a/);
    expect(parseError({ graphs: { a: "./a.ts" }, http: { disable_a2a: "yes" } })).toMatch(/http\.disable_a2a/);
    expect(parseError({ graphs: { a: "./a.ts" }, env: 3 })).toMatch(/\benv\b/);
    expect(parseError({ graphs: { a: "./a.ts" }, dependencies: "." })).toMatch(/dependencies/);
    expect(parseError({ graphs: { a: "./a.ts:" } })).toMatch(/graphs\.a.*export/);
  });

  it("image keys: node_version is a Node.js major >= 20, dependencies directories, dockerfile_lines one line each", () => {
    const ok = (keys: Record<string, unknown>) => parseLanggraphConfig({ graphs: { a: "./a.ts" }, ...keys }, CONFIG).config;
    expect(ok({ node_version: 22 }).node_version).toBe(22);
    expect(ok({ node_version: "24", dependencies: [".", "../lib"], dockerfile_lines: ["RUN echo hi"] }).dockerfile_lines).toEqual(["RUN echo hi"]);
    const err = (keys: Record<string, unknown>) => parseError({ graphs: { a: "./a.ts" }, ...keys });
    expect(err({ node_version: "20.11" })).toMatch(/node_version: must be a Node\.js major version like "20" \(no minor or patch\), got "20\.11"/);
    expect(err({ node_version: "lts" })).toMatch(/node_version: must be a Node\.js major version/);
    expect(err({ node_version: 18 })).toMatch(/node_version: Node\.js 18 is not supported: the minimum is 20/);
    expect(err({ node_version: true })).toMatch(/node_version/);
    expect(err({ dependencies: [""] })).toMatch(/dependencies\.0: must be a directory relative to the config/);
    expect(err({ dependencies: [3] })).toMatch(/dependencies\.0/);
    expect(err({ dockerfile_lines: ["RUN a", "ENV X=1\nRUN curl x | sh"] })).toMatch(/dockerfile_lines\.1: must be one Dockerfile line/);
    expect(err({ dockerfile_lines: ["RUN a\r"] })).toMatch(/dockerfile_lines\.0/);
    expect(err({ dockerfile_lines: "RUN a" })).toMatch(/dockerfile_lines/);
  });

  it("names the file in the message", () => {
    expect(parseError({ graphs: 5 })).toContain("langgraph.json");
  });

  it("a config without graphs, or with none, fails", () => {
    expect(parseError({})).toMatch(/graphs/);
    expect(parseError({ graphs: {} })).toMatch(/graphs.*at least one graph/);
    expect(parseError(null)).toBeTruthy();
    expect(parseError([])).toBeTruthy();
    expect(parseError("graphs")).toBeTruthy();
  });
});

describe("loadLanggraphConfig", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "berth-config-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const write = async (name: string, content: unknown) => {
    const file = path.join(dir, name);
    await writeFile(file, typeof content === "string" ? content : JSON.stringify(content));
    return file;
  };

  it("reads env from a .env file named by path, relative to the config", async () => {
    await write("custom.env", "OPENAI_API_KEY=sk-test\n# a comment\nQUOTED=\"a b\"\n");
    const file = await write("with-env-file.json", { graphs: { agent: "./agent.ts:graph" }, env: "./custom.env", http: { disable_a2a: true } });
    const cfg = await loadLanggraphConfig(file);
    expect(cfg.env).toEqual({ OPENAI_API_KEY: "sk-test", QUOTED: "a b" });
    expect(cfg.configPath).toBe(file);
    expect(cfg.configDir).toBe(dir);
    expect(cfg.graphs[0]!.file).toBe(path.join(dir, "agent.ts"));
    expect(cfg.disableA2a).toBe(true);
  });

  it("reads env given as a map", async () => {
    const file = await write("with-env-map.json", { graphs: { agent: "./agent.ts:graph" }, env: { A: "1" } });
    const cfg = await loadLanggraphConfig(file);
    expect(cfg.env).toEqual({ A: "1" });
    expect(cfg.disableA2a).toBe(false);
  });

  it("a missing env file (a template's git-ignored .env) is a warning naming the file, not a failure", async () => {
    const file = await write("missing-env.json", { graphs: { agent: "./agent.ts:graph" }, env: "./nope.env" });
    const cfg = await loadLanggraphConfig(file);
    expect(cfg.env).toEqual({});
    expect(cfg.warnings).toEqual([expect.stringMatching(/env file .*nope\.env does not exist/)]);
  });

  it("an env path that cannot be read (a directory) is an error naming env and the file", async () => {
    const file = await write("dir-env.json", { graphs: { agent: "./agent.ts:graph" }, env: "." });
    await expect(loadLanggraphConfig(file)).rejects.toThrow(/env: cannot read /);
  });

  it("a missing config file is a clear error", async () => {
    await expect(loadLanggraphConfig(path.join(dir, "absent.json"))).rejects.toThrow(/config file not found: .*absent\.json/);
  });

  it("invalid JSON is a clear error", async () => {
    const file = await write("broken.json", "{ graphs: ");
    await expect(loadLanggraphConfig(file)).rejects.toThrow(/broken\.json is not valid JSON/);
  });

  it("invalid content fails naming the key", async () => {
    const file = await write("bad.json", { graphs: 5 });
    await expect(loadLanggraphConfig(file)).rejects.toThrow(/graphs/);
  });

  it("passes on warnings", async () => {
    const file = await write("warn.json", { graphs: { agent: "./agent.ts:graph" }, enviroment: {} });
    const cfg = await loadLanggraphConfig(file);
    expect(cfg.warnings).toHaveLength(1);
    expect(cfg.warnings[0]).toContain('"enviroment"');
  });
});
