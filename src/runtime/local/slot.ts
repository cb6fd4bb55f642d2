import { abortReason } from "./shell.js";

/** A FIFO lock whose waiters can give up (a skipped revision stops waiting). */
export class Slot {
  private busy = false;
  private readonly waiters: (() => void)[] = [];

  acquire(signal: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(abortReason(signal));
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const next = this.waiters.shift();
        if (next) next();
        else this.busy = false;
      };
      if (!this.busy) {
        this.busy = true;
        return resolve(release);
      }
      const grant = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(release);
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortReason(signal));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(grant);
    });
  }
}
