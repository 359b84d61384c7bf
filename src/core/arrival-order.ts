/**
 * Hands work over in the order it arrived, per key, though what each piece does before the
 * hand-over (checks, loads from a database) may finish in any order. A message to an agent
 * reads the agent first; on PostgreSQL those reads can come back out of order, and messages
 * sent at once would then reach the engine, which runs them in the order it gets them, out of
 * the order they were sent.
 */
export class ArrivalOrder {
  /** Per key, the hand-over of the last arrival so far. */
  readonly #last = new Map<string, Promise<void>>();

  /**
   * Runs `prepare` at once, then `handOver` with its result as soon as every earlier arrival
   * under `key` has handed over (or failed before it), and resolves with what `handOver`
   * resolves with. `handOver` is called only after every earlier arrival's was: whatever its
   * synchronous part starts is started in arrival order.
   */
  async run<P, R>(
    key: string,
    prepare: () => Promise<P>,
    handOver: (prepared: P) => Promise<R>,
  ): Promise<R> {
    const before = this.#last.get(key) ?? Promise.resolve();
    let handedOver: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      handedOver = resolve;
    });
    // This place is passed once every earlier one is and this one is released: an arrival that
    // fails early must not let later ones overtake those before it.
    const mine = Promise.all([before, released]).then(() => undefined);
    this.#last.set(key, mine);
    void mine.then(() => {
      if (this.#last.get(key) === mine) this.#last.delete(key);
    });
    try {
      const prepared = await prepare();
      await before;
      const result = handOver(prepared);
      handedOver();
      return await result;
    } finally {
      // Failed before its hand-over: later arrivals do not wait for it.
      handedOver();
    }
  }

  /** Keys with arrivals still to hand over (for tests: the map does not grow; a key is let go a
   * tick after its last hand-over). */
  get pendingKeys(): number {
    return this.#last.size;
  }
}
