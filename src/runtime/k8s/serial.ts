/**
 * One chain of work per key: steps of one deployment run one at a time, in the order they were
 * queued (a revision's apply, a status the informer saw, a delete), while different deployments
 * proceed in parallel. A failing step is reported and does not stop the chain.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly onError: (key: string, err: unknown) => void) {}

  /** Queue `step` after the key's pending steps; resolves when it has run (never rejects). */
  run(key: string, step: () => Promise<void>): Promise<void> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(step).catch((err) => this.onError(key, err));
    this.tails.set(key, next);
    void next.then(() => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    });
    return next;
  }

  /** Resolves once every step queued so far has run. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
