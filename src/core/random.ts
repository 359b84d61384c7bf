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
