// Waiting for a condition over state that events change (messages received, stderr read): each
// event calls notify(); waitFor resolves as soon as the probe holds, or rejects after its bound
// with a message saying what was seen. Every wait is bounded and leaves no timer behind.

export class ConditionWaiters {
  private readonly watchers = new Set<() => void>();

  /** Re-checks every waiting probe; call after each change of the state they read. */
  notify(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  waitFor(probe: () => boolean, timeoutMs: number, failure: () => string): Promise<void> {
    if (probe()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const watcher = (): void => {
        if (!probe()) return;
        clearTimeout(timer);
        this.watchers.delete(watcher);
        resolve();
      };
      const timer = setTimeout(() => {
        this.watchers.delete(watcher);
        reject(new Error(failure()));
      }, timeoutMs);
      this.watchers.add(watcher);
    });
  }
}
