/**
 * One in-flight or settled load per key, shared by every caller of a run; a failed load is
 * forgotten, so the next caller tries again instead of inheriting the failure.
 */
export class PromiseMemo<V> {
  private readonly pending = new Map<string, Promise<V>>();

  get(key: string, load: () => Promise<V>): Promise<V> {
    let promise = this.pending.get(key);
    if (!promise) {
      promise = load();
      this.pending.set(key, promise);
      promise.catch(() => this.pending.delete(key));
    }
    return promise;
  }
}
