/**
 * The local listener (compute type `local`): the control plane's hooks that run each deployment on
 * this machine with a LocalDeployer — revisions built and started as they are created, statuses
 * and logs written back to storage, deletes torn down, and on start-up every live deployment
 * started again (its active revision, then a revision still waiting).
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ControlPlaneHooks } from "../../control-plane/api/routes.js";
import { isTerminal, revisionSnapshot, type DeploymentConfig, type RevisionStatus } from "../../control-plane/rules/index.js";
import { localPath } from "../../control-plane/git-hosts.js";
import { remoteHead } from "./git.js";
import type { DeploymentDatabases } from "./databases.js";
import { BadRequestError } from "../../shared/errors.js";
import type { DeploymentRow, DeploymentStore, RevisionRow } from "../../control-plane/storage/deployments.js";
import { deploymentAuthScope, platformAuthEnv, type AuthService, type JwtSettings, type Principal } from "../../shared/auth/index.js";
import type { Logger } from "../../shared/logging.js";
import { LocalDeployer, type LocalRevisionSpec, type RevisionSink } from "./deployer.js";
import { canSwitchUser, deploymentUser, unreachableAncestor } from "./isolation.js";

export interface LocalListenerOptions {
  store: DeploymentStore;
  /** Deployments live under `<dataDir>/deployments/<id>`. */
  dataDir: string;
  /**
   * Where deployments send traces: our tracing facility, project = deployment name. With `auth`
   * each deployment's agent server gets a key of its own (tracing:write into its project, revoked
   * when the deployment is deleted), kept in `<dataDir>/keys/` across revisions and restarts.
   */
  tracing?: { endpoint: string; auth?: DeploymentKeys };
  /**
   * Platform auth (on when given): each agent server requires a key of its tenant, checked against
   * a snapshot of the tenant's key hashes it refreshes from `controlPlaneUrl` every
   * `refreshSeconds` with a credential of its own (kept in `<dataDir>/keys/`, revoked on delete).
   */
  platformAuth?: { auth: PlatformAuthKeys; controlPlaneUrl: string; refreshSeconds?: number; jwt?: JwtSettings };
  /** Environment every deployment gets. */
  env?: Record<string, string>;
  /** Postgres databases for deployments (control plane on a Postgres server); else each gets PGlite. */
  databases?: DeploymentDatabases;
  deadlineMs?: number;
  /** How often build_on_push deployments of local repositories check their branch (default 10 s; 0 = never). */
  pollMs?: number;
  logger: Logger;
  /** Options for each deployer (tests shorten the grace periods). */
  deployer?: Partial<ConstructorParameters<typeof LocalDeployer>[0]>;
  /**
   * Run each deployment's processes as a user of its own (isolation.ts). Default: when the
   * control plane runs as root and other users can reach the data directory.
   */
  separateUsers?: boolean;
}

const FLUSH_MS = 300;

export type DeploymentKeys = Pick<AuthService, "createDeploymentKey" | "authenticate" | "revokeDeploymentKeys">;
export type PlatformAuthKeys = Pick<AuthService, "createDeploymentAuthKey" | "platformKeySnapshot" | "authenticate" | "revokeDeploymentKeys">;

export class LocalListener implements ControlPlaneHooks {
  private readonly deployers = new Map<string, LocalDeployer>();
  /** The branch head last acted on, per build_on_push deployment. */
  private readonly seenHeads = new Map<string, string>();
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly o: LocalListenerOptions) {}

  checkDeployable(config: DeploymentConfig): void {
    if (config.source === "external_container") {
      throw new BadRequestError("Source configuration error: the local listener builds hosted_git deployments; external_container needs a k8s listener (no container engine here)");
    }
  }

  revisionCreated(deployment: DeploymentRow, revision: RevisionRow): void {
    void this.deploy(deployment, revision).catch((err) => this.o.logger.error({ err, deployment: deployment.id, revision: revision.id }, "local deploy failed"));
  }

  deleteRequested(deployment: DeploymentRow): void {
    void (async () => {
      await this.deployers.get(deployment.id)?.stop();
      this.deployers.delete(deployment.id);
      await rm(this.dirOf(deployment.id), { recursive: true, force: true });
      await this.o.tracing?.auth?.revokeDeploymentKeys(deployment.id);
      await this.o.platformAuth?.auth.revokeDeploymentKeys(deployment.id);
      await rm(this.keyFileOf(deployment.id), { force: true });
      await rm(this.keyFileOf(deployment.id, "auth"), { force: true });
      await this.o.databases?.drop(deployment.id);
      await this.o.store.remove(deployment.id);
      this.o.logger.info({ deployment: deployment.name }, "deployment deleted");
    })().catch((err) => this.o.logger.error({ err, deployment: deployment.id }, "delete failed"));
  }

  /** Start every live deployment again and finish deletions (after a control-plane restart). */
  async resume(): Promise<void> {
    for (const d of await this.o.store.pendingDeletes()) this.deleteRequested(d);
    for (const { deployment, active, latest } of await this.o.store.allLive()) {
      // already DEPLOYED: rebuild and restart it without rewriting its history
      if (active) void this.deploy(deployment, active, true).catch((err) => this.o.logger.error({ err, deployment: deployment.id }, "restarting a deployment failed"));
      if (!latest || latest.id === active?.id) continue;
      if (latest.status === "QUEUED" || latest.status === "CREATING") this.revisionCreated(deployment, latest);
      else if (!isTerminal(latest.status)) {
        // it was being built or started when the control plane stopped: that attempt is lost.
        // Say so, and start the same configuration again as a new revision.
        await this.o.store.setRevisionStatus(latest.id, "INTERRUPTED", { reason: "the control plane restarted while this revision was in progress; a new revision was created" });
        const again = await this.o.store.addRevision(deployment.tenant_id, deployment.id, () => ({ ...latest.snapshot, secrets: latest.secrets }));
        this.revisionCreated(again.deployment, again.revision);
      }
    }
  }

  /**
   * build_on_push for repositories on this machine, which no host sends webhooks for: poll each
   * deployment's branch and create a revision when it moves (a burst of commits becomes one).
   */
  startPolling(): void {
    const every = this.o.pollMs ?? 10_000;
    if (every <= 0 || this.pollTimer) return;
    this.pollTimer = setInterval(() => void this.pollOnce(), every);
    this.pollTimer.unref();
  }

  async pollOnce(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const { deployment, latest } of await this.o.store.allBuildOnPush()) {
        const sc = deployment.config.source_config;
        const ref = deployment.config.source_revision_config.repo_ref;
        if (deployment.config.source !== "hosted_git" || !sc.build_on_push || !sc.repo_url || !ref || !localPath(sc.repo_url)) continue;
        const head = await remoteHead(sc.repo_url, ref).catch(() => undefined);
        if (!head) continue;
        const seen = this.seenHeads.get(deployment.id) ?? latest?.repo_commit_sha ?? undefined;
        this.seenHeads.set(deployment.id, head);
        // unknown yet (the first revision is still checking out): it will build this head anyway
        if (seen === undefined || seen === head) continue;
        const again = await this.o.store.addRevision(deployment.tenant_id, deployment.id, (d) => revisionSnapshot({ ...d.config, secrets: d.secrets }));
        this.o.logger.info({ deployment: deployment.name, head }, "branch moved: new revision");
        this.revisionCreated(again.deployment, again.revision);
      }
    } catch (err) {
      this.o.logger.warn({ err }, "polling branches failed");
    } finally {
      this.polling = false;
    }
  }

  async close(): Promise<void> {
    if (this.pollTimer) clearInterval(this.pollTimer);
    await Promise.all([...this.deployers.values()].map((d) => d.stop()));
    this.deployers.clear();
  }

  /** The deployment's URL, once its deployer is listening. */
  url(deploymentId: string): string | undefined {
    return this.deployers.get(deploymentId)?.url;
  }

  private dirOf(id: string) {
    return path.join(this.o.dataDir, "deployments", id);
  }

  /** Beside the control plane's own keys, out of the deployment's reach. */
  private keyFileOf(id: string, kind: "tracing" | "auth" = "tracing") {
    return path.join(this.o.dataDir, "keys", `${id}.${kind}.key`);
  }

  private readonly keyLocks = new Map<string, Promise<string>>();
  private separateUsers: Promise<boolean> | undefined;

  /** Whether deployments get users of their own (decided once; a warning says why not, when root). */
  private usersOn(): Promise<boolean> {
    this.separateUsers ??= (async () => {
      if (this.o.separateUsers === false || !canSwitchUser()) return false;
      const deployments = path.join(this.o.dataDir, "deployments");
      await mkdir(deployments, { recursive: true, mode: 0o711 });
      const blocked = await unreachableAncestor(deployments);
      if (!blocked) return true;
      this.o.logger.warn(
        { directory: blocked },
        `deployments run as root, like the control plane: other users cannot enter ${blocked}, so a deployment's own user could not reach its files. Give that directory o+x (chmod o+x) or use a data directory under one that has it`,
      );
      return false;
    })();
    return this.separateUsers;
  }

  /** The deployment's tracing key: the kept one while it is still valid, else a new one. */
  private tracingKey(deployment: DeploymentRow, auth: DeploymentKeys): Promise<string> {
    return this.keptKey(deployment, "tracing", auth, (p) => p.restricted?.project === deployment.name, () => auth.createDeploymentKey(deployment.tenant_id, deployment));
  }

  /** The deployment's platform-auth credential (fetches its key snapshot, nothing else). */
  private authKey(deployment: DeploymentRow, auth: PlatformAuthKeys): Promise<string> {
    const scope = deploymentAuthScope(deployment.id);
    return this.keptKey(deployment, "auth", auth, (p) => Boolean(p.restricted?.scopes.includes(scope)), () => auth.createDeploymentAuthKey(deployment.tenant_id, deployment));
  }

  /** A key kept in `<dataDir>/keys/` while it is still valid (`fits`), else a new one. One at a time per deployment. */
  private keptKey(
    deployment: DeploymentRow,
    kind: "tracing" | "auth",
    auth: Pick<AuthService, "authenticate">,
    fits: (p: Principal) => boolean,
    mint: () => Promise<{ key: string }>,
  ): Promise<string> {
    const lock = `${deployment.id}:${kind}`;
    const before = this.keyLocks.get(lock) ?? Promise.resolve("");
    const next = before.catch(() => "").then(async () => {
      const file = this.keyFileOf(deployment.id, kind);
      const kept = (await readFile(file, "utf8").catch(() => "")).trim();
      if (kept) {
        const principal = await auth.authenticate(kept, undefined).catch(() => undefined);
        if (principal?.tenantId === deployment.tenant_id && fits(principal)) return kept;
      }
      const { key } = await mint();
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await writeFile(file, `${key}\n`, { mode: 0o600 });
      return key;
    });
    this.keyLocks.set(lock, next);
    return next;
  }

  /** What turns platform auth on in the deployment's agent server: its tenant, the key snapshot of now, where to refresh it. */
  private async platformAuthEnv(deployment: DeploymentRow): Promise<Record<string, string>> {
    const pa = this.o.platformAuth;
    if (!pa) return {};
    return platformAuthEnv({
      tenantId: deployment.tenant_id,
      snapshot: await pa.auth.platformKeySnapshot(deployment.tenant_id),
      controlPlaneUrl: pa.controlPlaneUrl,
      deploymentId: deployment.id,
      deploymentKey: await this.authKey(deployment, pa.auth),
      refreshSeconds: pa.refreshSeconds,
      jwt: pa.jwt,
    });
  }

  private async deployerFor(deployment: DeploymentRow): Promise<LocalDeployer> {
    let d = this.deployers.get(deployment.id);
    if (!d) {
      // keep the URL across restarts: reuse the port recorded in custom_url
      const port = Number(/:(\d+)\/?$/.exec(deployment.config.source_config.custom_url ?? "")?.[1] ?? 0);
      d = new LocalDeployer({ deploymentId: deployment.id, port, ...this.o.deployer });
      this.deployers.set(deployment.id, d);
      const url = await d.listen().catch(async () => {
        // the remembered port is taken now: take any
        d = new LocalDeployer({ deploymentId: deployment.id, ...this.o.deployer });
        this.deployers.set(deployment.id, d);
        return d.listen();
      });
      await this.o.store.assignUrl(deployment.id, url);
    }
    return d;
  }

  private async deploy(deployment: DeploymentRow, revision: RevisionRow, restart = false): Promise<void> {
    const deployer = await this.deployerFor(deployment);
    const databaseUri = await this.o.databases?.ensure(deployment.id);
    if (databaseUri) await this.o.store.setDatabaseReady(deployment.id, true);
    const cfg = deployment.config;
    const snap = revision.snapshot.source_revision_config;
    const tracingKey = this.o.tracing?.auth ? await this.tracingKey(deployment, this.o.tracing.auth) : undefined;
    const user = (await this.usersOn()) ? await deploymentUser(path.join(this.o.dataDir, "deployments"), deployment.id) : undefined;
    const spec: LocalRevisionSpec = {
      deploymentId: deployment.id,
      deploymentName: deployment.name,
      revisionId: revision.id,
      seq: revision.seq,
      source: "hosted_git",
      repoUrl: cfg.source_config.repo_url ?? "",
      repoRef: snap.repo_ref ?? "main",
      agentConfigPath: snap.agent_config_path ?? "langgraph.json",
      installCommand: cfg.source_config.install_command,
      buildCommand: cfg.source_config.build_command,
      secrets: revision.secrets,
      env: {
        ...(this.o.tracing
          ? {
              LANGSMITH_TRACING: "true",
              LANGSMITH_ENDPOINT: this.o.tracing.endpoint,
              LANGSMITH_PROJECT: deployment.name,
            }
          : {}),
        ...this.o.env,
      },
      // the agent server's credentials: install and build commands get neither
      agentEnv: { ...(tracingKey ? { LANGSMITH_API_KEY: tracingKey } : {}), ...(databaseUri ? { DATABASE_URI: databaseUri } : {}), ...(await this.platformAuthEnv(deployment)) },
      dataDir: this.dirOf(deployment.id),
      user,
    };
    const sink = this.sink(deployment.id, revision.id);
    const result = await deployer.deploy(spec, restart ? { ...sink, setStatus: async () => undefined } : sink, {
      initialStatus: revision.status === "CREATING" ? "CREATING" : "QUEUED",
      deadlineMs: this.o.deadlineMs,
    });
    this.o.logger.info({ deployment: deployment.name, revision: revision.id, status: result.status, reason: result.reason }, "revision finished");
  }

  /** Statuses go straight to storage; log lines are batched. */
  private sink(deploymentId: string, revisionId: string): RevisionSink {
    const store = this.o.store;
    const buffer: Record<"build" | "deploy", { level: string; message: string; ts: string }[]> = { build: [], deploy: [] };
    let timer: NodeJS.Timeout | undefined;
    const flush = async () => {
      timer = undefined;
      for (const type of ["build", "deploy"] as const) {
        const lines = buffer[type].splice(0);
        await store.appendLogs(revisionId, type, lines).catch(() => undefined);
      }
    };
    return {
      async setStatus(status: RevisionStatus, detail = {}) {
        await flush();
        await store.setRevisionStatus(revisionId, status, detail);
        if (status === "DEPLOYED") await store.setDatabaseReady(deploymentId, true);
      },
      log(type, line, level = "INFO") {
        buffer[type].push({ level, message: line, ts: new Date().toISOString() });
        timer ??= setTimeout(() => void flush(), FLUSH_MS);
      },
    };
  }
}
