import { performance } from "node:perf_hooks";

/** Percentile of sorted samples (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export interface Timings {
  count: number;
  totalMs: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export function summarize(samplesMs: readonly number[], totalMs: number): Timings {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    count: samplesMs.length,
    totalMs,
    perSecond: (samplesMs.length / totalMs) * 1000,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  };
}

/** Rates over the samples' own time: where runs alternate, wall time holds both sides. */
export function byOwnTime(samplesMs: readonly number[]): Timings {
  return summarize(
    samplesMs,
    samplesMs.reduce((sum, ms) => sum + ms, 0),
  );
}

/** Runs `fn`, returning how long it took in milliseconds. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Resident memory in MB, after a full GC when the process allows one (`--expose-gc`). */
export function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / (1024 * 1024);
}

/** Live JS heap in MB, after a full GC when the process allows one. */
export function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / (1024 * 1024);
}
