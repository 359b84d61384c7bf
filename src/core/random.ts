/** Randomness, injected so that a seed replays a run exactly. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
}

/** A small, fast, seedable generator (mulberry32). Not for secrets. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return {
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    },
  };
}

export const systemRandom: Random = { next: () => Math.random() };

/** A child stream: the same parent seed and label always give the same child. */
export function forkRandom(parent: Random, label: string): Random {
  let hash = Math.floor(parent.next() * 4_294_967_296);
  for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 16_777_619) >>> 0;
  return seededRandom(hash);
}

/** An integer in [min, max]. */
export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random.next() * (max - min + 1));
}

/** One of the items, chosen by `random`. */
export function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random.next() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}
