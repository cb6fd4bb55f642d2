/**
 * How the k8s listener's work runs: every step of one deployment is queued on that deployment's
 * chain (KeyedSerial); a step ends quietly on `Stop` or `Aborted` and runs again when it lost a
 * database conflict; Kubernetes calls are retried on transient errors; every wait ends when the
 * listener closes. Shared by the listener and its parts (builds, status, teardown), so they all
 * stop, retry and wait the same way.
 */
import { isTransient } from "../../operator/kube/index.js";
import type { Logger } from "../../shared/logging.js";
import { KeyedSerial } from "./serial.js";

/** A wait ended because the listener closed or its build was cancelled: not an error. */
export class Aborted extends Error {}

/** A step that cannot go on (the revision is terminal, the deployment is being deleted…): not an error. */
export class Stop extends Error {}

/** Postgres deadlock_detected and serialization_failure: the transaction was rolled back, try again. */
const DB_RETRY_CODES = new Set(["40P01", "40001"]);
export const retryable = (err: unknown) => DB_RETRY_CODES.has((err as { code?: string } | undefined)?.code ?? "");

/** Errors a step's own error handling must pass on rather than turn into a failed revision. */
export const passOn = (err: unknown) => err instanceof Stop || err instanceof Aborted || retryable(err);

export class Steps {
  private readonly serial: KeyedSerial;

  constructor(
    private readonly logger: Logger,
    /** Aborted when the listener closes: every wait ends, Kubernetes calls are no longer retried. */
    readonly closing: AbortSignal,
  ) {
    this.serial = new KeyedSerial((key, err) => logger.error({ err, deployment: key }, "k8s listener step failed"));
  }

  /** Queue `fn` as a step of the deployment's chain. */
  queue(deploymentId: string, fn: () => Promise<void>): void {
    void this.serial.run(deploymentId, () => this.step(fn));
  }

  /** Resolves once every step queued so far has run. */
  idle(): Promise<void> {
    return this.serial.idle();
  }

  /**
   * Run a step; `Stop` ends it quietly, anything else is logged by the chain. A step that lost a
   * database deadlock or serialization conflict (its transaction was rolled back) runs again: steps
   * re-read what they act on, so running one twice is safe.
   */
  private async step(fn: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (err instanceof Stop || err instanceof Aborted) return;
        if (attempt >= 4 || !retryable(err)) throw err;
        this.logger.debug({ err, attempt }, "k8s listener step lost a database conflict; running it again");
        await this.sleep(50 * attempt);
      }
    }
  }

  /** Kubernetes calls retried on conflicts, throttling, 5xx and network errors. */
  async kube<T>(fn: () => Promise<T>): Promise<T> {
    let delay = 200;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= 5 || !isTransient(err) || this.closing.aborted) throw err;
        await this.sleep(delay);
        delay *= 2;
      }
    }
  }

  /** Wait `ms`; rejects with `Aborted` when the listener closes (or `signal` aborts) first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const signals = [this.closing, ...(signal ? [signal] : [])];
      if (signals.some((s) => s.aborted)) return reject(new Aborted());
      const done = () => {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        done();
        reject(new Aborted());
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      for (const s of signals) s.addEventListener("abort", onAbort, { once: true });
    });
  }
}
