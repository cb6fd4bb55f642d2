/**
 * Runtime dispatch: the control plane's hooks, sent per deployment to the runtime of its
 * listener's compute type (`source_config.listener_id` → the listener's `compute_type`); a
 * deployment without a listener goes to the server's default runtime (`local` for `berth dev`,
 * `k8s` for `berth control-plane`). A compute type this server has no runtime for is refused at
 * create time with a 400 naming what is missing.
 *
 * Each runtime also gets a view of the store in which the start-up queries (live deployments,
 * pending deletes, build-on-push deployments) only return its own deployments, so that `resume()`
 * of one runtime never picks up another's.
 */
import { BadRequestError } from "../shared/errors.js";
import type { Logger } from "../shared/logging.js";
import type { ControlPlaneHooks } from "./api/routes.js";
import { SOURCE_ERROR_PREFIX, type ComputeType, type DeploymentConfig, type Listener } from "./rules/index.js";
import type { DeploymentRow, DeploymentStore, RevisionRow } from "./storage/deployments.js";
import type { ListenerStore } from "./storage/listeners.js";

/** What a runtime (LocalListener, K8sListener) offers the control plane. */
export interface Runtime {
  /** Refuse (throw a 400) a deployment this runtime cannot run; `listener` is the deployment's, if it names one. */
  checkDeployable(config: DeploymentConfig, listener?: Listener): void | Promise<void>;
  revisionCreated(deployment: DeploymentRow, revision: RevisionRow, superseded: RevisionRow[]): void;
  deleteRequested(deployment: DeploymentRow): void;
  resume(): Promise<void>;
  close(): Promise<void>;
}

/** What to tell a client whose deployment needs a runtime this server does not have. */
export const MISSING_RUNTIME: Readonly<Record<ComputeType, string>> = {
  k8s: "this control plane has no Kubernetes connection (set BERTH_K8S=true)",
  local: "this control plane has no local runtime: compute type 'local' runs deployments on the machine of `berth dev`",
};

export interface RuntimesOptions {
  listeners: Pick<ListenerStore, "get">;
  /** Runtimes are added once they exist (they need the store, which needs the hooks). */
  defaultType: ComputeType;
  logger: Logger;
}

type DeploymentRef = Pick<DeploymentRow, "id" | "tenant_id"> & { config: { source_config: { listener_id?: string | null } } };

export class Runtimes {
  private readonly runtimes = new Map<ComputeType, Runtime>();
  /** Listener id → compute type (it cannot change, and a listener in use cannot be deleted). */
  private readonly types = new Map<string, ComputeType>();
  /** Hooks of one deployment reach its runtime in the order they were called. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly o: RuntimesOptions) {}

  get defaultType(): ComputeType {
    return this.o.defaultType;
  }

  add(type: ComputeType, runtime: Runtime): void {
    this.runtimes.set(type, runtime);
  }

  get(type: ComputeType): Runtime | undefined {
    return this.runtimes.get(type);
  }

  /** The compute type a deployment runs on. */
  async computeTypeOf(d: DeploymentRef): Promise<ComputeType> {
    const id = d.config.source_config.listener_id;
    if (!id) return this.o.defaultType;
    let type = this.types.get(id);
    if (!type) {
      type = (await this.o.listeners.get(d.tenant_id, id)).compute_type;
      this.types.set(id, type);
    }
    return type;
  }

  /** The control plane's hooks; `extra` adds the ones that are no runtime's business (tracing projects). */
  hooks(extra: Pick<ControlPlaneHooks, "deploymentCreated"> = {}): ControlPlaneHooks {
    return {
      ...extra,
      checkDeployable: async (config, context) => {
        const type = context?.listener?.compute_type ?? this.o.defaultType;
        const runtime = this.runtimes.get(type);
        if (!runtime) throw new BadRequestError(`${SOURCE_ERROR_PREFIX}${MISSING_RUNTIME[type]}`);
        await runtime.checkDeployable(config, context?.listener);
      },
      revisionCreated: (deployment, revision, superseded) => this.dispatch(deployment, "revision", (r) => r.revisionCreated(deployment, revision, superseded)),
      deleteRequested: (deployment) => this.dispatch(deployment, "delete", (r) => r.deleteRequested(deployment)),
    };
  }

  private dispatch(d: DeploymentRow, what: string, call: (runtime: Runtime) => void): void {
    const prev = this.chains.get(d.id) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        const type = await this.computeTypeOf(d);
        const runtime = this.runtimes.get(type);
        if (!runtime) {
          this.o.logger.warn({ deployment: d.id, computeType: type }, `no ${type} runtime on this control plane: the ${what} waits until one is configured (${MISSING_RUNTIME[type]})`);
          return;
        }
        call(runtime);
      })
      .catch((err) => this.o.logger.error({ err, deployment: d.id }, `dispatching a ${what} failed`));
    this.chains.set(d.id, next);
    void next.then(() => {
      if (this.chains.get(d.id) === next) this.chains.delete(d.id);
    });
  }

  /**
   * `store` as `type`'s runtime should see it at start-up: the queries that walk every deployment
   * return only those of this compute type. Everything else is the store itself.
   */
  scopedStore(store: DeploymentStore, type: ComputeType): DeploymentStore {
    const mine = async <T>(rows: T[], of: (row: T) => DeploymentRow): Promise<T[]> => {
      const out: T[] = [];
      for (const row of rows) {
        const t = await this.computeTypeOf(of(row)).catch((err) => {
          this.o.logger.warn({ err, deployment: of(row).id }, "cannot tell the deployment's compute type (its listener is unreadable): skipped");
          return undefined;
        });
        if (t === type) out.push(row);
      }
      return out;
    };
    const scoped: Partial<DeploymentStore> = {
      allLive: async () => mine(await store.allLive(), (x) => x.deployment),
      pendingDeletes: async () => mine(await store.pendingDeletes(), (x) => x),
      allBuildOnPush: async () => mine(await store.allBuildOnPush(), (x) => x.deployment),
    };
    return new Proxy(store, {
      get(target, prop) {
        if (typeof prop === "string" && prop in scoped) return scoped[prop as keyof typeof scoped];
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  /** Resume every runtime (after a restart). */
  async resume(): Promise<void> {
    for (const runtime of this.runtimes.values()) await runtime.resume();
  }

  async close(): Promise<void> {
    await Promise.all([...this.chains.values()]);
    await Promise.all([...this.runtimes.values()].map((r) => r.close()));
  }
}
