/**
 * A map that forgets its oldest entry past a bound: what an isolate learns of the servers it calls
 * (a dialect, an output limit), kept for its life without growing past what a deployment reaches.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Sets `key`, as the newest entry; the oldest goes when the bound is reached. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }
}
