/**
 * Stage results kept with the fingerprint of what they read (see `recording-host.ts`).
 */
import type { Fingerprint, RecordingHost } from "./recording-host.js";

/** A cache of one stage's results by key, each valid while its fingerprint holds. */
export class StageMemo<T> {
  readonly #entries = new Map<string, { readonly fingerprint: Fingerprint; readonly result: T }>();

  constructor(readonly host: RecordingHost) {}

  /** The kept result for `key` when everything it read is unchanged, else a fresh `compute()`. */
  get(key: string, compute: () => T): T {
    const hit = this.#entries.get(key);
    if (hit && this.host.holds(hit.fingerprint)) return hit.result;
    const { result, fingerprint } = this.host.record(compute);
    this.#entries.set(key, { fingerprint, result });
    return result;
  }

  /** The kept result for `key` when everything it read is unchanged, else `undefined` (nothing is computed). */
  peek(key: string): T | undefined {
    const hit = this.#entries.get(key);
    return hit && this.host.holds(hit.fingerprint) ? hit.result : undefined;
  }

  /** Forgets the result for `key`. */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets every result. */
  clear(): void {
    this.#entries.clear();
  }
}
