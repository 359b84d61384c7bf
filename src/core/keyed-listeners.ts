/**
 * Listeners by key (an agent, a chain run). Publishing under a key nobody follows costs one map
 * lookup, so work without an audience pays nothing for it. A listener that throws is dropped:
 * one broken stream must not break the work that feeds it.
 */
export class KeyedListeners<E> {
  readonly #listeners = new Map<string, Set<(event: E) => void>>();

  subscribe(key: string, listener: (event: E) => void): () => void {
    let set = this.#listeners.get(key);
    if (!set) {
      set = new Set();
      this.#listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(key) === set) this.#listeners.delete(key);
    };
  }

  /** Whether anyone follows the key now. */
  listening(key: string): boolean {
    return this.#listeners.has(key);
  }

  publish(key: string, event: E): void {
    const set = this.#listeners.get(key);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch {
        set.delete(listener);
      }
    }
  }
}
