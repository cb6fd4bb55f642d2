/**
 * Leader election on a coordination.k8s.io/v1 Lease, after client-go's leaderelection: one
 * replica holds the lease and renews it every `retryPeriod`; the others try to take it once it
 * has not been renewed for `leaseDuration`. Expiry is judged by this process's own clock from
 * when it last saw the lease record change (never by comparing clocks across machines). Writes
 * carry the lease's resourceVersion, so two candidates cannot both win. A leader that cannot
 * renew within `renewDeadline` steps down; on a clean stop it releases the lease so a standby
 * takes over at once instead of after a full lease duration.
 */
import type { Logger } from "../../shared/logging.js";
import { isConflict, objectPath, resourceType, type KubeObject, type KubeRest } from "../kube/index.js";

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  logger: Logger;
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubeObject & { spec?: LeaseSpec };

const LEASE = resourceType("coordination.k8s.io/v1", "Lease");
/** MicroTime: RFC 3339 with microseconds. */
const microTime = (d: Date) => d.toISOString().replace("Z", "000Z");

export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** The tick under way, if any: stop() lets it finish before releasing (see release()). */
  private inflight: Promise<void> | undefined;
  private lastRenew = 0;
  private observed: { record: string; at: number } | undefined;

  constructor(
    private readonly rest: KubeRest,
    private readonly o: LeaderElectionOptions,
  ) {
    this.leaseDurationMs = o.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = o.retryPeriodMs ?? 2_000;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    this.run();
  }

  /** Stop campaigning; a leader releases the lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // A renewal still in flight would land after (or between the read and the write of) the release
    // below: the release's write then conflicts and the lease stays held until it expires. Bounded: a tick
    // stuck on a silent connection must not hold stop() (past renewDeadline we would not lead anyway).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.inflight, new Promise<void>((r) => (timer = setTimeout(r, this.renewDeadlineMs)))]);
    clearTimeout(timer);
    if (this.leading) {
      this.leading = false;
      this.o.onStoppedLeading();
      await this.release().catch((err) => this.o.logger.warn({ err: String(err) }, "could not release the lease"));
    }
  }

  private run(): void {
    const tick = this.tick().finally(() => {
      if (this.inflight === tick) this.inflight = undefined;
      this.schedule();
    });
    this.inflight = tick;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.run(), this.retryPeriodMs);
  }

  private async tick(): Promise<void> {
    try {
      const ok = await this.tryAcquireOrRenew();
      if (ok) {
        this.lastRenew = Date.now();
        if (!this.leading && !this.stopped) {
          this.leading = true;
          this.o.logger.info({ lease: `${this.o.namespace}/${this.o.name}`, identity: this.o.identity }, "became leader");
          this.o.onStartedLeading();
        }
      } else if (this.leading) this.stepDown("another replica holds the lease");
    } catch (err) {
      this.o.logger.warn({ err: String((err as Error)?.message ?? err) }, "leader election: lease request failed");
      if (this.leading && Date.now() - this.lastRenew > this.renewDeadlineMs) this.stepDown("could not renew the lease in time");
    }
  }

  private stepDown(why: string): void {
    this.leading = false;
    this.o.logger.warn({ why }, "lost leadership");
    this.o.onStoppedLeading();
  }

  private path(): string {
    return objectPath(LEASE, this.o.namespace, this.o.name);
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const lease = await this.rest.request<Lease | undefined>("GET", this.path(), { allow404: true });
    const mine: LeaseSpec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    if (!lease) {
      try {
        await this.rest.create({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: this.o.name, namespace: this.o.namespace }, spec: mine });
        return true;
      } catch (err) {
        if (isConflict(err)) return false;
        throw err;
      }
    }
    const spec = lease.spec ?? {};
    const record = JSON.stringify(spec);
    if (this.observed?.record !== record) this.observed = { record, at: Date.now() };
    const held = spec.holderIdentity && spec.holderIdentity !== this.o.identity;
    const duration = (spec.leaseDurationSeconds ?? 15) * 1000;
    if (held && this.observed.at + duration > Date.now()) return false;
    const next: LeaseSpec =
      spec.holderIdentity === this.o.identity
        ? { ...spec, renewTime: microTime(now), leaseDurationSeconds: mine.leaseDurationSeconds }
        : { ...mine, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    try {
      // PUT with the resourceVersion we read: a concurrent candidate's write makes this a 409
      await this.rest.request("PUT", this.path(), { body: { ...lease, spec: next } });
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  /**
   * Give the lease up: holder "" (free, taken at once by a standby) and a 1 s duration, as client-go does. A
   * conflict means the lease changed between our read and write; read it again and retry while it is still ours.
   */
  private async release(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const lease = await this.rest.request<Lease | undefined>("GET", this.path(), { allow404: true });
      if (!lease || lease.spec?.holderIdentity !== this.o.identity) return;
      const now = microTime(new Date());
      try {
        await this.rest.request("PUT", this.path(), { body: { ...lease, spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: now, acquireTime: now } } });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 4) throw err;
      }
    }
  }
}
