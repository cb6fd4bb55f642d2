/**
 * The `berth` CLI. `serve` runs one agent server (API and queue workers) for a langgraph.json;
 * `worker` runs queue workers only (they share a Postgres and Redis with the API processes).
 */
import net from "node:net";
import path from "node:path";
import { Command, Option } from "commander";
import { ConfigError, resolveAgentServerSettings, type AgentServerSettings } from "../shared/config.js";
import { createLogger } from "../shared/logging.js";
import { listen } from "../shared/net.js";
import { startAgentServer, type AgentServerHandle } from "../agent-server/server.js";
import type { TracingSettings } from "../tracing/index.js";
import { BERTH_VERSION } from "../agent-server/version.js";

const program = new Command();
program.name("berth").description("Deploy and run LangGraph.js agents").version(BERTH_VERSION);

interface ServeFlags {
  config?: string;
  port?: string;
  host?: string;
  dataDir?: string;
  nJobsPerWorker?: string;
  logLevel?: string;
  apiKey?: string;
  apiKeysFile?: string;
  studio?: boolean;
}

function settingsFrom(flags: ServeFlags, serveHttp: boolean): AgentServerSettings {
  return resolveAgentServerSettings(
    {
      configPath: flags.config,
      port: flags.port,
      host: flags.host,
      dataDir: flags.dataDir,
      jobsPerWorker: flags.nJobsPerWorker,
      logLevel: flags.logLevel,
      apiKey: flags.apiKey,
      apiKeysFile: flags.apiKeysFile,
      studio: flags.studio,
      serveHttp,
    },
    process.env,
    (configPath) => path.join(path.dirname(path.resolve(configPath)), ".berth"),
  );
}

/**
 * Start a server, tell a forking parent it is ready, and stop it cleanly on SIGTERM/SIGINT (a
 * second signal exits at once). A failure to start exits 1 with the reason.
 */
async function serveUntilSignal(start: () => Promise<{ close(): Promise<void> }>, ready: (h: any) => Record<string, unknown>): Promise<void> {
  try {
    const handle = await start();
    if (process.send) process.send({ type: "ready", ...ready(handle) });
    let stopping = false;
    const stop = () => {
      if (stopping) process.exit(130);
      stopping = true;
      handle.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  } catch (err) {
    console.error(`berth: ${(err as Error).message}`);
    process.exit(1);
  }
}

/** Resolve settings, or say what is wrong with them and exit 2. */
function settingsOrExit<T>(resolve: () => T): T {
  try {
    return resolve();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`berth: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

async function run(flags: ServeFlags, serveHttp: boolean): Promise<void> {
  const settings: AgentServerSettings = settingsOrExit(() => settingsFrom(flags, serveHttp));
  const logger = createLogger({ level: settings.logLevel });
  let handle: AgentServerHandle;
  try {
    // Fail fast, before the database is opened or a worker claims a run, when the port is taken.
    if (serveHttp && settings.port !== 0) await ensurePortFree(settings.port, settings.host);
    handle = await startAgentServer(settings, logger);
  } catch (err) {
    logger.fatal({ err: { message: (err as Error).message } }, "berth could not start");
    console.error(`berth: ${(err as Error).message}`);
    process.exit(1);
  }
  if (process.send) process.send({ type: "ready", url: handle.url, studioUrl: handle.studioUrl });
  // the log line says it too; a person at a terminal gets it readable
  if (handle.studioUrl && process.stderr.isTTY) process.stderr.write(`berth: Studio at ${handle.studioUrl}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(130);
    }
    stopping = true;
    logger.info({ signal }, "shutting down: draining running runs");
    handle.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  if (process.env.BERTH_EXIT_WITH_PARENT === "1") {
    // started by a control plane: when it dies (we are re-parented), stop as on SIGTERM
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) stop("parent exited");
    }, 1000).unref();
  }
  process.on("SIGINT", () => stop("SIGINT"));
}

/** Resolve when `host:port` can be bound; reject with a clear message when it is in use. */
async function ensurePortFree(port: number, host: string): Promise<void> {
  const probe = net.createServer();
  probe.unref();
  await listen(probe, port, host);
  await new Promise<void>((r) => probe.close(() => r()));
}

const common = (cmd: Command) =>
  cmd
    .option("-c, --config <file>", "langgraph.json-compatible config file (default: ./langgraph.json)")
    .option("--data-dir <dir>", "embedded database directory (default: .berth/ beside the config; env BERTH_DATA_DIR)")
    .option("--n-jobs-per-worker <n>", "runs executed at once by this process; 0 = API only (env N_JOBS_PER_WORKER, default 10)")
    .addOption(new Option("--log-level <level>", "log level (env LOG_LEVEL)").choices(["fatal", "error", "warn", "info", "debug", "trace", "silent"]));

common(
  program
    .command("serve")
    .description("Run an agent server: the HTTP API and queue workers (embedded PGlite unless DATABASE_URI is set)")
    .option("-p, --port <n>", "port (env PORT, default 8123)")
    .option("--host <addr>", "address to bind (env HOST, default 127.0.0.1)")
    .option("--api-key <keys>", "require one of these keys (comma-separated, 16+ characters each) in X-Api-Key or Authorization: Bearer (env BERTH_API_KEY; default: no key, loopback only)")
    .option("--api-keys-file <file>", "require one of the keys in this file, one a line (env BERTH_API_KEYS_FILE)")
    .option("--studio", "serve the Studio page at /studio/ (env BERTH_STUDIO; default: on when listening on loopback)")
    .option("--no-studio", "do not serve the Studio page"),
).action((flags: ServeFlags) => run(flags, true));

common(program.command("worker").description("Run queue workers only (needs DATABASE_URI; REDIS_URI recommended)")).action((flags: ServeFlags) =>
  run(flags, false),
);

interface TracingFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  prefix?: string;
  logLevel?: string;
}

program
  .command("tracing")
  .description("Run the tracing facility alone: point LangSmith SDKs at it with LANGSMITH_ENDPOINT")
  .option("-p, --port <n>", "port (env PORT, default 1984)")
  .option("--host <addr>", "address to bind (env HOST, default 127.0.0.1)")
  .option("--data-dir <dir>", "embedded database directory (env BERTH_DATA_DIR, default .berth/tracing)")
  .option("--prefix <path>", 'mount the API under a path, e.g. /tracing (env BERTH_TRACING_PREFIX, default "")')
  .addOption(new Option("--log-level <level>", "log level (env LOG_LEVEL)").choices(["fatal", "error", "warn", "info", "debug", "trace", "silent"]))
  .action(async (flags: TracingFlags) => {
    // loaded on demand: the price table and tokenizer have no business in an agent server's memory
    const { resolveTracingSettings, startTracingServer } = await import("../tracing/index.js");
    const settings: TracingSettings = settingsOrExit(() =>
      resolveTracingSettings({ port: flags.port, host: flags.host, dataDir: flags.dataDir, prefix: flags.prefix, logLevel: flags.logLevel }),
    );
    const logger = createLogger({ level: settings.logLevel });
    await serveUntilSignal(() => startTracingServer(settings, logger), (h) => ({ url: h.url }));
  });

program
  .command("image-step")
  .description("A step of the Dockerfiles Berth generates for image builds: check langgraph.json's node_version, dependencies and dockerfile_lines against this image, or install its dependencies")
  .argument("<step>", "check | dependencies")
  .requiredOption("--config <file>", "the agent's langgraph.json, relative to --root")
  .option("--root <dir>", "the repository root", "/deps")
  .action(async (step: string, flags: { config: string; root: string }) => {
    const { runImageStep } = await import("../runtime/k8s/image-step.js");
    process.exitCode = await runImageStep(step, flags);
  });

interface DevFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  logLevel?: string;
}

program
  .command("dev")
  .description("Everything on one machine: the control plane, tracing (/tracing) and the local runtime, on one port")
  .option("-p, --port <n>", "port (env PORT, default 8080)")
  .option("--host <addr>", "address to bind (env HOST, default 127.0.0.1)")
  .option("--data-dir <dir>", "where the embedded database, deployments and keys live (env BERTH_DATA_DIR, default .berth)")
  .addOption(new Option("--log-level <level>", "log level (env LOG_LEVEL)").choices(["fatal", "error", "warn", "info", "debug", "trace", "silent"]))
  .action(async (flags: DevFlags) => {
    const { resolveControlPlaneSettings } = await import("../control-plane/settings.js");
    const { startControlPlaneServer } = await import("../control-plane/server.js");
    const settings = settingsOrExit(() => resolveControlPlaneSettings({ port: flags.port, host: flags.host, dataDir: flags.dataDir, logLevel: flags.logLevel }));
    const logger = createLogger({ level: settings.logLevel });
    await serveUntilSignal(() => startControlPlaneServer(settings, logger), (h) => ({ url: h.url, apiKey: h.adminKey, integrationId: h.integrationId }));
  });

interface OperatorFlags {
  namespaces?: string;
  leaderElect?: boolean;
  port?: string;
  workers?: string;
  kubeconfig?: string;
  logLevel?: string;
}

program
  .command("operator")
  .description("Run the Kubernetes operator: reconciles AgentDeployments into agent-server pods (in a pod or with KUBECONFIG)")
  .option("--namespaces <list>", "comma-separated namespaces to watch (env BERTH_OPERATOR_NAMESPACES, default: all)")
  .option("--no-leader-elect", "run without leader election (one replica only; env BERTH_OPERATOR_LEADER_ELECT=false)")
  .option("-p, --port <n>", "port of /healthz, /readyz and /metrics (env BERTH_OPERATOR_PORT, default 8081)")
  .option("--workers <n>", "concurrent reconciles (env BERTH_OPERATOR_WORKERS, default 4)")
  .option("--kubeconfig <file>", "kubeconfig file (default: in-cluster, else KUBECONFIG or ~/.kube/config)")
  .addOption(new Option("--log-level <level>", "log level (env LOG_LEVEL)").choices(["fatal", "error", "warn", "info", "debug", "trace", "silent"]))
  .action(async (flags: OperatorFlags) => {
    const { resolveOperatorSettings } = await import("../operator/settings.js");
    const { startOperator } = await import("../operator/operator.js");
    const settings = settingsOrExit(() =>
      resolveOperatorSettings({
        namespaces: flags.namespaces,
        // commander sets leaderElect=true by default for --no-*: only pass it when it was turned off
        leaderElect: flags.leaderElect === false ? false : undefined,
        port: flags.port,
        workers: flags.workers,
        kubeconfig: flags.kubeconfig,
        logLevel: flags.logLevel,
      }),
    );
    const logger = createLogger({ level: settings.logLevel, name: "berth-operator" });
    await serveUntilSignal(() => startOperator(settings, logger), (h) => ({ url: h.url }));
  });

interface ControlPlaneFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  databaseUri?: string;
  secretsKey?: string;
  apiKey?: string;
  authMode?: string;
  deployDeadlineSeconds?: string;
  logLevel?: string;
  k8s?: string;
  kubeconfig?: string;
  k8sDefaultNamespace?: string;
  k8sNamespaces?: string;
  publicUrl?: string;
  agentBaseImage?: string;
  kanikoImage?: string;
  imageRegistry?: string;
  registryPushSecret?: string;
}

program
  .command("control-plane")
  .description("The control plane of a Kubernetes cluster: the deployments API, tracing (/tracing) and the k8s listener (AgentDeployments for the operator)")
  .option("-p, --port <n>", "port (env PORT, default 8080)")
  .option("--host <addr>", "address to bind (env HOST, default 0.0.0.0)")
  .option("--data-dir <dir>", "embedded database and generated keys when DATABASE_URI is unset (env BERTH_DATA_DIR, default .berth)")
  .option("--database-uri <uri>", "Postgres (env DATABASE_URI; embedded PGlite when unset)")
  .option("--secrets-key <keys>", "key(s) for secrets at rest, newest first, comma-separated (env BERTH_SECRETS_KEY; required with DATABASE_URI)")
  .option("--api-key <key>", "admin API key of the default tenant (env BERTH_API_KEY; required with DATABASE_URI)")
  .addOption(new Option("--auth-mode <mode>", "API key checks (env BERTH_AUTH_MODE, default required)").choices(["required", "loopback-open"]))
  .option("--deploy-deadline-seconds <n>", "a revision not ready after this long is DEPLOY_FAILED (env BERTH_DEPLOY_DEADLINE_SECONDS, default 300)")
  .addOption(new Option("--log-level <level>", "log level (env LOG_LEVEL)").choices(["fatal", "error", "warn", "info", "debug", "trace", "silent"]))
  .addOption(new Option("--k8s <mode>", "drive a Kubernetes cluster (env BERTH_K8S, default auto: in a pod or with KUBECONFIG)").choices(["true", "false", "auto"]))
  .option("--kubeconfig <file>", "kubeconfig file (env KUBECONFIG; in a pod, its service account)")
  .option("--k8s-default-namespace <ns>", "namespace of deployments that name none (env BERTH_K8S_DEFAULT_NAMESPACE, default: the pod's, else default)")
  .option("--k8s-namespaces <list>", "watch AgentDeployments only in these namespaces, comma-separated (env BERTH_K8S_NAMESPACES, default all)")
  .option("--public-url <url>", "this control plane's URL as seen from the cluster; traces go to <url>/tracing (env BERTH_PUBLIC_URL)")
  .option("--agent-base-image <image>", "the image hosted_git builds extend (env BERTH_AGENT_BASE_IMAGE)")
  .option("--kaniko-image <image>", "the Kaniko executor of builds (env BERTH_KANIKO_IMAGE)")
  .option("--image-registry <prefix>", "where builds push when the listener names no registry, e.g. registry.example.com/berth (env BERTH_IMAGE_REGISTRY)")
  .option("--registry-push-secret <name>", "kubernetes.io/dockerconfigjson Secret builds push with (env BERTH_REGISTRY_PUSH_SECRET)")
  .action(async (flags: ControlPlaneFlags) => {
    const { resolveControlPlaneSettings } = await import("../control-plane/settings.js");
    const { secretsKey, ...rest } = flags;
    // settings first: a bad one is reported before the server's modules are loaded
    const settings = settingsOrExit(() => resolveControlPlaneSettings({ ...rest, secretsKeys: secretsKey }, process.env, "control-plane"));
    const { startControlPlaneServer } = await import("../control-plane/server.js");
    const logger = createLogger({ level: settings.logLevel });
    await serveUntilSignal(() => startControlPlaneServer(settings, logger), (h) => ({ url: h.url }));
  });

await program.parseAsync(process.argv);
