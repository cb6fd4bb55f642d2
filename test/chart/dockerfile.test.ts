/**
 * The Dockerfile, read as text (no Docker engine here to build it): the stages exist and chain as documented,
 * the runtime stages run as a non-root user with the `berth` CLI as entrypoint and on PATH, every COPY from the
 * build context names a path that exists and that .dockerignore does not exclude.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Instruction {
  op: string;
  args: string;
  line: number;
}

interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Instructions with continuation lines joined and comments dropped. */
function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let pending = "";
  let start = 0;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trimEnd();
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) return;
    if (pending !== "" && line.trimStart().startsWith("#")) return; // comments inside a continued instruction
    if (pending === "") start = i + 1;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = (pending + line).trim();
    pending = "";
    const m = /^(\S+)\s*(.*)$/s.exec(full)!;
    instructions.push({ op: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start });
  });
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.op === "FROM") {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`line ${ins.line}: cannot read FROM ${ins.args}`);
      const from = m[1]!.replace(/\$\{?(\w+)\}?/g, (_, k: string) => args.get(k) ?? `\${${k}}`);
      stages.push({ from, name: m[2]?.toLowerCase(), instructions: [] });
    } else if (stages.length === 0) {
      if (ins.op !== "ARG") throw new Error(`line ${ins.line}: ${ins.op} before the first FROM`);
      const [k, v = ""] = ins.args.split("=", 2) as [string, string?];
      args.set(k.trim(), v.trim());
    } else stages.at(-1)!.instructions.push(ins);
  }
  return { args, stages };
}

/** Sources and destination of a COPY, with its --flags. */
function copyParts(args: string): { flags: Record<string, string>; sources: string[]; dest: string } {
  const flags: Record<string, string> = {};
  let rest = args;
  for (;;) {
    const m = /^--([a-z-]+)(?:=(\S+))?\s+/.exec(rest);
    if (!m) break;
    flags[m[1]!] = m[2] ?? "true";
    rest = rest.slice(m[0].length);
  }
  const parts = rest.startsWith("[") ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
  return { flags, sources: parts.slice(0, -1), dest: parts.at(-1)! };
}

const exec = (ins: Instruction | undefined): string[] => {
  expect(ins, "instruction present").toBeDefined();
  expect(ins!.args.startsWith("["), `${ins!.op} in exec (JSON) form`).toBe(true);
  return JSON.parse(ins!.args) as string[];
};
const last = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).at(-1);

/** The effective USER of a stage, following FROM <stage> chains. */
function effectiveUser(stages: Stage[], stage: Stage): string | undefined {
  const own = last(stage, "USER")?.args;
  if (own !== undefined) return own;
  const parent = stages.find((s) => s.name === stage.from.toLowerCase());
  return parent ? effectiveUser(stages, parent) : undefined;
}

const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
const { stages } = parseDockerfile(dockerfile);
const stage = (name: string) => {
  const s = stages.find((x) => x.name === name);
  expect(s, `stage ${name}`).toBeDefined();
  return s!;
};

describe("Dockerfile", () => {
  it("has the stages build → base → (default) server, on a Node that package.json supports", () => {
    expect(stages.map((s) => s.name)).toEqual(["build", "base", "server"]);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };
    const minMajor = Number(/>=\s*(\d+)/.exec(pkg.engines.node)![1]);
    for (const s of [stage("build"), stage("base")]) {
      const m = /^node:(\d+)(?:[.\d]*)-bookworm-slim$/.exec(s.from);
      expect(m, `${s.name} FROM ${s.from}`).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThanOrEqual(minMajor);
    }
    expect(stage("build").from).toBe(stage("base").from);
    expect(stage("server").from).toBe("base");
    // The default image is the last stage.
    expect(stages.at(-1)!.name).toBe("server");
  });

  it("builds with npm ci and npm run build (server and web console), then prunes dev dependencies", () => {
    const runs = stage("build").instructions.filter((i) => i.op === "RUN").map((i) => i.args);
    expect(runs.some((r) => r.includes("npm ci"))).toBe(true);
    expect(runs.some((r) => r.includes("npm run build"))).toBe(true);
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.build).toContain("tsc -p tsconfig.build.json");
    expect(scripts.build).toContain("vite build --config src/console/vite.config.ts");
    expect(runs.some((r) => r.includes("npm prune --omit=dev"))).toBe(true);
    const build = JSON.parse(readFileSync(path.join(ROOT, "tsconfig.build.json"), "utf8")) as { compilerOptions: { outDir: string } };
    const copies = stage("base").instructions.filter((i) => i.op === "COPY").map((i) => copyParts(i.args));
    const fromBuild = copies.filter((c) => c.flags.from === "build").flatMap((c) => c.sources);
    expect(fromBuild).toEqual(expect.arrayContaining(["/app/package.json", "/app/node_modules", `/app/${build.compilerOptions.outDir}`]));
  });

  it("runs as a non-root user in the runtime stages", () => {
    for (const name of ["base", "server"]) {
      const user = effectiveUser(stages, stage(name));
      expect(user, `USER of ${name}`).toBeDefined();
      expect(["root", "0", "0:0", "root:root"]).not.toContain(user);
    }
    // …and that user owns the writable directories (the embedded database, the project of images that extend it).
    const run = stage("base").instructions.filter((i) => i.op === "RUN").map((i) => i.args).join("\n");
    expect(run).toMatch(/chown node:node \/data \/deps/);
    expect(effectiveUser(stages, stage("base"))).toBe("node");
  });

  it("has the berth CLI as ENTRYPOINT and on PATH (the operator starts agent containers with `berth …`)", () => {
    const entrypoint = exec(last(stage("base"), "ENTRYPOINT"));
    expect(entrypoint).toEqual(["node", "/app/bin/berth.js"]);
    expect(existsSync(path.join(ROOT, "bin", "berth.js"))).toBe(true);
    const run = stage("base").instructions.filter((i) => i.op === "RUN").map((i) => i.args).join("\n");
    expect(run).toContain("ln -s /app/bin/berth.js /usr/local/bin/berth");
    expect(run).toContain("ln -s /app/node_modules /node_modules");
    const agent = readFileSync(path.join(ROOT, "src", "operator", "render", "agent.ts"), "utf8");
    expect(agent).toMatch(/command: \["berth", /);
  });

  it("serves /deps/langgraph.json by default, keeps the embedded database under /data, and has a HEALTHCHECK", () => {
    expect(exec(last(stage("server"), "CMD"))).toEqual(["serve", "--config", "/deps/langgraph.json"]);
    expect(last(stage("base"), "CMD")).toBeUndefined();
    const env = stage("base").instructions.filter((i) => i.op === "ENV").map((i) => i.args).join(" ");
    expect(env).toContain("BERTH_DATA_DIR=/data");
    expect(env).toContain("NODE_ENV=production");
    expect(last(stage("base"), "HEALTHCHECK")?.args).toContain("/ok");
  });

  it("documents the commands at the top", () => {
    const header = dockerfile.split("\n").filter((l) => l.startsWith("#")).join("\n");
    for (const cmd of ["control-plane", "operator", "serve", "worker"]) expect(header).toContain(`berth ${cmd}`);
  });

  it("copies only paths that exist in the repository and that .dockerignore keeps", () => {
    const ignore = readFileSync(path.join(ROOT, ".dockerignore"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
    for (const required of ["node_modules", "dist", ".git", "scratch", ".berth", "coverage"]) expect(ignore, `.dockerignore ${required}`).toContain(required);
    const ignored = (p: string) =>
      ignore.some((pat) => {
        if (pat.startsWith("!")) return false;
        const bare = pat.replace(/^\*\*\//, "").replace(/\/$/, "");
        const segments = p.split("/");
        return pat.startsWith("**/") ? segments.includes(bare) : p === bare || p.startsWith(`${bare}/`);
      });
    const contextCopies = stages.flatMap((s) => s.instructions.filter((i) => i.op === "COPY" || i.op === "ADD").map((i) => ({ stage: s.name, ...copyParts(i.args) })));
    const fromContext = contextCopies.filter((c) => !c.flags.from);
    expect(fromContext.length).toBeGreaterThan(0);
    for (const c of fromContext) {
      for (const src of c.sources) {
        const rel = path.normalize(src).replace(/^\.\//, "");
        expect(existsSync(path.join(ROOT, rel)), `COPY ${src} (stage ${c.stage}) exists`).toBe(true);
        expect(ignored(rel), `COPY ${src} (stage ${c.stage}) is not excluded by .dockerignore`).toBe(false);
      }
    }
    for (const c of contextCopies.filter((x) => x.flags.from)) {
      const idx = stages.findIndex((s) => s.name === c.stage);
      expect(stages.slice(0, idx).map((s) => s.name), `COPY --from=${c.flags.from}`).toContain(c.flags.from);
    }
  });
});
