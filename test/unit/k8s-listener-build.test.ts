/**
 * hosted_git builds on Kubernetes, the pure parts: the generated Dockerfile (its install step makes
 * the same choice as the local runtime's install.ts, checked by running both over the same
 * repositories), Kaniko's git context, the Job (valid against the Kubernetes schemas, with the
 * mounts and arguments Kaniko needs), the Job's outcome, and picking up a build log after a restart.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Job } from "kubernetes-models/batch/v1/Job";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { afterAll, describe, expect, it } from "vitest";
import { detectInstallCommand } from "../../src/runtime/local/install.js";
import {
  INSTALL_SCRIPT,
  buildJobFor,
  dockerfileConfigMapFor,
  dockerfileFor,
  gitContext,
  gitContextProblem,
  gitCredentialsSecretFor,
  imageFor,
  jobOutcome,
  pinnedImage,
  shellQuote,
} from "../../src/runtime/k8s/build.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fullRef, parseRefAdvertisement, smartHttpLsRemote } from "../../src/runtime/k8s/commit.js";
import { levelOf, resumeAt } from "../../src/runtime/k8s/build-log.js";
import { buildName, gitSecretName } from "../../src/runtime/k8s/names.js";

const D = { id: "0f8fad5b-d9cb-469f-a165-70867728950e", name: "my-agent", tenant_id: "00000000-0000-4000-8000-000000000001" };
const REV = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

describe("the Dockerfile", () => {
  it("extends the base image, copies the repository to /deps, installs, builds in the config's directory and serves the config", () => {
    const text = dockerfileFor({ baseImage: "ghcr.io/berth-dev/berth:1.2.3", agentConfigPath: "agent/langgraph.json", installCommand: "npm ci --omit=dev", buildCommand: "npm run build" });
    const lines = text.trimEnd().split("\n").filter((l) => !l.startsWith("#"));
    expect(lines).toEqual([
      "FROM ghcr.io/berth-dev/berth:1.2.3",
      "COPY --chown=node:node . /deps",
      "WORKDIR /deps",
      'RUN ["berth","image-step","check","--config","/deps/agent/langgraph.json","--root","/deps"]',
      'RUN ["/bin/sh","-c","npm ci --omit=dev"]',
      `RUN ["/bin/sh","-c","cd '/deps/agent' && npm run build"]`,
      'ENV BERTH_CONFIG="/deps/agent/langgraph.json"',
      'CMD ["serve","--config","/deps/agent/langgraph.json"]',
    ]);
  });

  it("without install_command runs the lockfile detection; without build_command has no build step; ./ paths are normalised", () => {
    const text = dockerfileFor({ baseImage: "base:1", agentConfigPath: "./langgraph.json" });
    expect(text).toContain(`RUN ${JSON.stringify(["/bin/sh", "-c", INSTALL_SCRIPT])}`);
    expect(text).not.toContain("cd '/deps");
    expect(text).toContain('CMD ["serve","--config","/deps/langgraph.json"]');
    expect(text).toContain('ENV BERTH_CONFIG="/deps/langgraph.json"');
  });

  it("keeps commands with quotes and newlines intact (exec form)", () => {
    const cmd = `echo "it's" &&\nnpm ci`;
    const text = dockerfileFor({ baseImage: "b", agentConfigPath: "it's/langgraph.json", installCommand: cmd, buildCommand: "make" });
    const runs = text.split("\n").filter((l) => l.startsWith("RUN ")).map((l) => JSON.parse(l.slice(4)) as string[]);
    expect(runs[0]).toEqual(["berth", "image-step", "check", "--config", "/deps/it's/langgraph.json", "--root", "/deps"]);
    expect(runs[1]).toEqual(["/bin/sh", "-c", cmd]);
    expect(runs[2]).toEqual(["/bin/sh", "-c", `cd ${shellQuote("/deps/it's")} && make`]);
    expect(execFileSync("sh", ["-c", `printf %s ${shellQuote("a'b\"c")}`]).toString()).toBe(`a'b"c`);
  });

  describe("the install step chooses like install.ts", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "berth-k8s-install-"));
    const bin = path.join(root, "bin");
    mkdirSync(bin);
    // stand-ins that print the command they were run as
    for (const tool of ["npm", "yarn", "pnpm", "bun"]) {
      writeFileSync(path.join(bin, tool), `#!/bin/sh\necho "${tool} $*"\n`);
      chmodSync(path.join(bin, tool), 0o755);
    }
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    const cases: [string, Record<string, string>][] = [
      ["yarn.lock", { "yarn.lock": "", "package-lock.json": "{}", "package.json": "{}" }],
      ["pnpm-lock.yaml", { "pnpm-lock.yaml": "", "package-lock.json": "{}", "package.json": "{}" }],
      ["package-lock.json", { "package-lock.json": "{}", "package.json": "{}" }],
      ["npm-shrinkwrap.json", { "npm-shrinkwrap.json": "{}", "package.json": "{}" }],
      ["bun.lockb", { "bun.lockb": "", "package.json": "{}" }],
      ["bun.lock", { "bun.lock": "", "package.json": "{}" }],
      ["package.json only", { "package.json": "{}" }],
      ["packageManager yarn", { "package.json": JSON.stringify({ packageManager: "yarn@4.1.0" }) }],
      ["packageManager pnpm", { "package.json": JSON.stringify({ packageManager: "pnpm@9.0.0" }) }],
      ["packageManager bun", { "package.json": JSON.stringify({ packageManager: "bun@1.1.0" }) }],
      ["packageManager npm", { "package.json": JSON.stringify({ packageManager: "npm@10.0.0" }) }],
      ["nothing", { "README.md": "" }],
    ];
    for (const [label, files] of cases) {
      it(label, () => {
        const dir = mkdtempSync(path.join(root, "repo-"));
        for (const [f, content] of Object.entries(files)) writeFileSync(path.join(dir, f), content);
        const out = execFileSync("sh", ["-c", INSTALL_SCRIPT], { cwd: dir, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } }).toString().trim();
        const pkg = files["package.json"] ? JSON.parse(files["package.json"]) : undefined;
        expect(out).toBe(detectInstallCommand(new Set(Object.keys(files)), pkg)?.command ?? "");
      });
    }
  });
});

describe("the git context", () => {
  it("turns a branch into refs/heads and pins the commit when known", () => {
    expect(gitContext("https://github.com/acme/agent.git", "main", "a".repeat(40))).toEqual({ context: `git://github.com/acme/agent.git#refs/heads/main#${"a".repeat(40)}`, pullMethod: "https" });
    expect(gitContext("https://github.com/acme/agent", "feature/x").context).toBe("git://github.com/acme/agent#refs/heads/feature/x");
  });
  it("keeps tags and full refs, takes a sha ref as the commit", () => {
    expect(gitContext("https://git.example.com:8443/a/b.git", "refs/tags/v1.2").context).toBe("git://git.example.com:8443/a/b.git#refs/tags/v1.2");
    const sha = "0123456789abcdef0123456789abcdef01234567";
    expect(gitContext("https://h/r", sha).context).toBe(`git://h/r##${sha}`);
  });
  it("pulls plain http repositories over http, and keeps credentials out of the context", () => {
    const g = gitContext("http://bot:s%40cret@git.internal/team/agent.git", "main");
    expect(g).toEqual({ context: "git://git.internal/team/agent.git#refs/heads/main", pullMethod: "http", credentials: { username: "bot", password: "s@cret" } });
  });
  it("refuses what the cluster cannot clone", () => {
    expect(gitContextProblem("https://github.com/acme/agent")).toBeUndefined();
    expect(gitContextProblem("file:///home/me/agent")).toMatch(/cannot clone 'file:\/\/\/home\/me\/agent'.*https URL/);
    expect(gitContextProblem("/home/me/agent")).toMatch(/cannot clone/);
    expect(gitContextProblem("ssh://git@github.com/acme/agent")).toMatch(/clone over http\(s\), not ssh/);
    expect(gitContextProblem("git@github.com:acme/agent.git")).toMatch(/clone over http\(s\)|not a URL/);
  });
});

describe("images", () => {
  it("are named <registry>/<deployment>:<first 12 of the revision id>", () => {
    expect(imageFor("registry.example.com/berth", "my-agent", REV)).toBe("registry.example.com/berth/my-agent:7c9e6679-742");
    expect(imageFor("registry.example.com/berth/", "my-agent", REV)).toBe("registry.example.com/berth/my-agent:7c9e6679-742");
  });
  it("are pinned by the digest Kaniko reports, when it is one", () => {
    const digest = `sha256:${"ab".repeat(32)}`;
    expect(pinnedImage("r/a:1", `${digest}\n`)).toBe(`r/a:1@${digest}`);
    expect(pinnedImage("r/a:1", undefined)).toBe("r/a:1");
    expect(pinnedImage("r/a:1", "Error: something")).toBe("r/a:1");
  });
});

describe("the build Job", () => {
  const base = {
    name: buildName(D.name, REV),
    namespace: "agents",
    revisionId: REV,
    kanikoImage: "gcr.io/kaniko-project/executor:v1.23.2",
    git: gitContext("https://github.com/acme/agent.git", "main", "b".repeat(40)),
    destination: imageFor("registry.example.com/berth", D.name, REV),
    configMap: buildName(D.name, REV),
    ttlSecondsAfterFinished: 3600,
    activeDeadlineSeconds: 1800,
  };

  it("runs Kaniko once, with the context, the mounted Dockerfile and the destination", () => {
    const job = buildJobFor(D, base);
    expect(() => new Job(job as never).validate()).not.toThrow();
    expect(job.metadata).toMatchObject({ name: "my-agent-build-7c9e6679", namespace: "agents" });
    expect(job.metadata.labels).toMatchObject({ "app.kubernetes.io/managed-by": "berth-control-plane", "berth.dev/deployment-id": D.id, "berth.dev/revision-id": REV });
    expect(job.metadata.ownerReferences).toBeUndefined();
    const spec = job.spec as any;
    expect(spec).toMatchObject({ backoffLimit: 0, ttlSecondsAfterFinished: 3600, activeDeadlineSeconds: 1800 });
    expect(spec.template.metadata.labels["berth.dev/revision-id"]).toBe(REV);
    expect(spec.template.spec.restartPolicy).toBe("Never");
    const [c] = spec.template.spec.containers;
    expect(c.image).toBe(base.kanikoImage);
    expect(c.args).toEqual(
      expect.arrayContaining([
        `--context=git://github.com/acme/agent.git#refs/heads/main#${"b".repeat(40)}`,
        "--dockerfile=/berth/Dockerfile",
        "--destination=registry.example.com/berth/my-agent:7c9e6679-742",
      ]),
    );
    expect(c.volumeMounts).toEqual([{ name: "dockerfile", mountPath: "/berth", readOnly: true }]);
    expect(spec.template.spec.volumes).toEqual([{ name: "dockerfile", configMap: { name: base.configMap } }]);
    expect(c.env).toBeUndefined();
  });

  it("mounts the push secret as /kaniko/.docker/config.json and passes git credentials from a Secret", () => {
    const job = buildJobFor(D, { ...base, pushSecret: "regcred", gitSecret: gitSecretName(D.name), git: gitContext("http://git.internal/a.git", "main") });
    expect(() => new Job(job as never).validate()).not.toThrow();
    const pod = (job.spec as any).template.spec;
    const [c] = pod.containers;
    expect(c.volumeMounts).toContainEqual({ name: "registry-auth", mountPath: "/kaniko/.docker", readOnly: true });
    expect(pod.volumes).toContainEqual({ name: "registry-auth", secret: { secretName: "regcred", items: [{ key: ".dockerconfigjson", path: "config.json" }] } });
    expect(c.env).toEqual([
      { name: "GIT_USERNAME", valueFrom: { secretKeyRef: { name: "my-agent-git-credentials", key: "username" } } },
      { name: "GIT_PASSWORD", valueFrom: { secretKeyRef: { name: "my-agent-git-credentials", key: "password" } } },
      { name: "GIT_PULL_METHOD", value: "http" },
    ]);
  });

  it("comes with a valid ConfigMap and git credentials Secret", () => {
    const cm = dockerfileConfigMapFor(D, REV, { name: base.configMap, namespace: "agents", dockerfile: "FROM x\n" });
    expect(() => new ConfigMap(cm as never).validate()).not.toThrow();
    expect(cm.data).toEqual({ Dockerfile: "FROM x\n" });
    const s = gitCredentialsSecretFor(D, { name: gitSecretName(D.name), namespace: "agents", username: "x-access-token", password: "tok" });
    expect(() => new Secret(s as never).validate()).not.toThrow();
    expect(Buffer.from((s.data as any).password, "base64").toString()).toBe("tok");
  });

  it("has names that fit Kubernetes for the longest deployment names", () => {
    const long = "a".repeat(63);
    expect(buildName(long, REV).length).toBeLessThanOrEqual(63);
    expect(gitSecretName(long).length).toBeLessThanOrEqual(63);
  });
});

describe("a Job's outcome", () => {
  it("reads the Complete and Failed conditions, then the pod counts", () => {
    const job = (status: unknown) => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, status });
    expect(jobOutcome(undefined)).toEqual({ done: false });
    expect(jobOutcome(job({ active: 1 }))).toEqual({ done: false });
    expect(jobOutcome(job({ conditions: [{ type: "Complete", status: "True" }] }))).toEqual({ done: true, succeeded: true });
    expect(jobOutcome(job({ succeeded: 1 }))).toEqual({ done: true, succeeded: true });
    expect(jobOutcome(job({ failed: 1, conditions: [{ type: "Failed", status: "True", reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" }] }))).toEqual({
      done: true,
      succeeded: false,
      reason: "DeadlineExceeded: Job was active longer than specified deadline",
    });
    expect(jobOutcome(job({ failed: 1 }))).toEqual({ done: true, succeeded: false, reason: "the build pod failed" });
    expect(jobOutcome(job({ conditions: [{ type: "Failed", status: "False" }] }))).toEqual({ done: false });
  });
});

describe("following a build log again after a restart", () => {
  const pod = ["a", "b", "c", "b", "c", "d", "e"];
  it("continues after the last place the build log's last lines appear", () => {
    expect(resumeAt(pod, ["b", "c", "d"])).toBe(6);
    expect(resumeAt(pod, ["b", "c"])).toBe(5);
    expect(resumeAt(pod, ["e"])).toBe(7);
  });
  it("stores Kaniko's error lines as ERROR", () => {
    expect(levelOf("error building image: x")).toBe("ERROR");
    expect(levelOf('time="…" level=error msg="x"')).toBe("ERROR");
    expect(levelOf("INFO[0001] Retrieving image manifest")).toBe("INFO");
  });
  it("starts from the beginning when nothing of the pod's log was copied yet", () => {
    expect(resumeAt(pod, ["Job agents/x created", "Dockerfile:", "  FROM x"])).toBe(0);
    expect(resumeAt(pod, [])).toBe(0);
    expect(resumeAt([], ["a"])).toBe(0);
  });
});

describe("resolving a ref to a commit (smart HTTP, no git binary needed)", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "berth-k8s-refs-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const git = (args: string[], cwd = root) => execFileSync("git", args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).toString().trim();

  /** A real repository's advertisement, as `git upload-pack` writes it for smart HTTP. */
  function advertisement(): { body: string; main: string; tagCommit: string; tagObject: string } {
    const repo = mkdtempSync(path.join(root, "repo-"));
    git(["init", "-q", "-b", "main", repo]);
    writeFileSync(path.join(repo, "a.txt"), "1");
    git(["add", "."], repo);
    git(["commit", "-q", "-m", "one"], repo);
    const tagCommit = git(["rev-parse", "HEAD"], repo);
    git(["tag", "-a", "v1", "-m", "v1"], repo);
    writeFileSync(path.join(repo, "a.txt"), "2");
    git(["commit", "-q", "-am", "two"], repo);
    const refs = execFileSync("git", ["upload-pack", "--stateless-rpc", "--advertise-refs", repo]).toString();
    const header = "# service=git-upload-pack\n";
    const body = `${(header.length + 4).toString(16).padStart(4, "0")}${header}0000${refs}`;
    return { body, main: git(["rev-parse", "HEAD"], repo), tagCommit, tagObject: git(["rev-parse", "v1"], repo) };
  }

  it("parses branches and peels annotated tags", () => {
    const a = advertisement();
    const refs = parseRefAdvertisement(a.body);
    expect(refs.get("refs/heads/main")).toBe(a.main);
    expect(a.tagObject).not.toBe(a.tagCommit);
    expect(refs.get("refs/tags/v1")).toBe(a.tagCommit);
    expect(fullRef("main")).toBe("refs/heads/main");
    expect(fullRef("refs/tags/v1")).toBe("refs/tags/v1");
  });

  it("asks <repo>/info/refs with the token, and answers undefined for an unknown ref", async () => {
    const a = advertisement();
    const seen: { url?: string; auth?: string }[] = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization });
      if (req.url !== "/acme/agent.git/info/refs?service=git-upload-pack") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" }).end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await smartHttpLsRemote(`${base}/acme/agent.git`, "main", "tok")).toBe(a.main);
      expect(seen[0]!.auth).toBe(`Basic ${Buffer.from("x-access-token:tok").toString("base64")}`);
      expect(await smartHttpLsRemote(`${base}/acme/agent.git/`, "refs/tags/v1")).toBe(a.tagCommit);
      expect(await smartHttpLsRemote(`${base}/acme/agent.git`, "nope")).toBeUndefined();
      await expect(smartHttpLsRemote(`${base}/other.git`, "main")).rejects.toThrow(/answered 404/);
      expect(await smartHttpLsRemote(`${base}/x`, "A".repeat(40))).toBe("a".repeat(40));
    } finally {
      server.close();
    }
  });
});
