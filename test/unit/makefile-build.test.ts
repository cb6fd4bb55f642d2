/**
 * `make build` (and so `make dev`, `make serve`) compiles only when something the build reads
 * changed: the repository's Makefile runs in a scratch tree whose `npm run build` just counts its
 * calls. File times are set explicitly (not left to the clock), so the test does not depend on
 * how fast the machine is.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MAKEFILE = new URL("../../Makefile", import.meta.url);

describe("make build", () => {
  let dir: string;
  const at = (...p: string[]) => path.join(dir, ...p);
  const builds = () => (existsSync(at("builds")) ? readFileSync(at("builds"), "utf8").length : 0);
  const make = () => {
    execFileSync("make", ["-s", "build"], { cwd: dir, stdio: "pipe", env: { ...process.env, MAKEFLAGS: "" } });
    return builds();
  };
  const write = (p: string, text: string) => {
    mkdirSync(path.dirname(at(p)), { recursive: true });
    writeFileSync(at(p), text);
  };
  /** Every input well in the past, the lockfile older than the install, the last build after all of them. */
  const settle = () => {
    const now = Date.now() / 1000;
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => [path.join(d, e.name), ...(e.isDirectory() ? walk(path.join(d, e.name)) : [])]);
    for (const p of [dir, ...walk(dir)]) if (!p.startsWith(at("dist"))) utimesSync(p, now - 300, now - 300);
    utimesSync(at("package-lock.json"), now - 400, now - 400);
    if (existsSync(at("dist", ".build-stamp"))) utimesSync(at("dist", ".build-stamp"), now - 100, now - 100);
  };
  const touch = (p: string) => {
    const now = Date.now() / 1000;
    utimesSync(at(p), now, now);
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "berth-make-"));
    copyFileSync(MAKEFILE, at("Makefile"));
    // `npm run build` here appends one character per call, and writes dist/ as the real build does
    write("package.json", JSON.stringify({ name: "scratch", private: true, scripts: { build: "node -e \"const fs=require('fs');fs.mkdirSync('dist',{recursive:true});fs.appendFileSync('builds','x')\"" } }));
    write("package-lock.json", "{}");
    write("node_modules/.package-lock.json", "{}");
    write("tsconfig.json", "{}");
    write("tsconfig.build.json", "{}");
    write("src/cli/main.ts", "export {};");
    write("src/shared/config.ts", "export {};");
    write("src/console/App.tsx", "export {};");
    write("src/console/vite.config.ts", "export {};");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds once, then not again while nothing changed", () => {
    settle();
    expect(make()).toBe(1);
    expect(statSync(at("dist", ".build-stamp")).isFile()).toBe(true);
    settle();
    expect(make()).toBe(1);
    expect(make()).toBe(1);
  });

  it("builds again when a source, a console source or the build configuration changed", () => {
    let expected = builds();
    for (const changed of ["src/shared/config.ts", "src/console/App.tsx", "src/console/vite.config.ts", "tsconfig.json", "tsconfig.build.json", "package.json"]) {
      settle();
      touch(changed);
      expect(make(), changed).toBe(++expected);
      expect(make(), `${changed}, twice`).toBe(expected);
    }
  });

  it("builds again when a source is added or deleted", () => {
    let expected = builds();
    settle();
    write("src/shared/new-module.ts", "export {};");
    expect(make()).toBe(++expected);
    settle();
    unlinkSync(at("src/shared/new-module.ts"));
    expect(make()).toBe(++expected);
  });

  it("builds again after the dependencies were installed anew", () => {
    let expected = builds();
    settle();
    touch("node_modules/.package-lock.json");
    expect(make()).toBe(++expected);
  });

  it("builds again when dist/ was removed (make clean)", () => {
    let expected = builds();
    settle();
    rmSync(at("dist"), { recursive: true });
    expect(make()).toBe(++expected);
  });
});
