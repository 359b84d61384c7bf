/** Vector helpers shared by the stores: the stored form and exact cosine distance. */

/** The bytes of a vector as stored: little-endian float32, sqlite-vec's own format. */
export function vectorBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A stored vector read back from its bytes (copied, so alignment never matters). */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

/**
 * 1 − cosine similarity, as sqlite-vec's `vec_distance_cosine` computes it; a zero vector is
 * at distance 1 from everything, and vectors of different sizes cannot be compared (Infinity).
 */
export function cosineDistance(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    aa += x * x;
    bb += y * y;
  }
  if (aa === 0 || bb === 0) return 1;
  return 1 - dot / Math.sqrt(aa * bb);
}
