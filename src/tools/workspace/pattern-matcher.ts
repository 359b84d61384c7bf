import { Worker } from "node:worker_threads";
import type {
  GrepReply,
  GrepRequest,
  MatchReply,
  MatchRequest,
  WorkerReady,
} from "./pattern-worker.js";

/** Matches one compiled pattern against texts, off the event loop; `close` ends its thread. */
export interface PatternMatcher {
  /** The matching lines of `text`, at most `limit`: 0-based index and the line, cut short. */
  matchLines(text: string, limit: number): Promise<[number, string][]>;
  /**
   * The matching lines of a file's content among the lines an agent sees (`fileLines`), at
   * most `limit`, each with `context` lines either side: the content is split in the thread.
   */
  grepFile(text: string, limit: number, context: number): Promise<GrepReply["matches"]>;
  close(): Promise<void>;
}

/** Why a matcher could not start. */
export type MatcherFailure = { reason: "invalid"; message: string } | { reason: "stopped" };

/** A pending match when the thread was terminated (the tool timed out or the run ended). */
export class MatcherStoppedError extends Error {
  override readonly name = "MatcherStoppedError";
}

export { MAX_PATTERN_CHARS } from "../../core/re2-regexp.js";

/**
 * Vitest runs the TypeScript sources, where the worker is `pattern-worker.ts` (Node strips its
 * types); the built server runs `dist/`, where it is `pattern-worker.js`.
 */
const WORKER_URL = new URL(
  import.meta.url.endsWith(".ts") ? "./pattern-worker.ts" : "./pattern-worker.js",
  import.meta.url,
);

/**
 * Starts a worker thread with `pattern` compiled by RE2 (linear time: no backtracking, so no
 * backreferences or lookaround). When `signal` aborts (the tool's timeout or a cancelled run),
 * the thread is terminated mid-match and every pending call rejects with `MatcherStoppedError`.
 */
export async function startPatternMatcher(
  pattern: string,
  lineChars: number,
  signal: AbortSignal,
): Promise<PatternMatcher | MatcherFailure> {
  if (signal.aborted) return { reason: "stopped" };
  const worker = new Worker(WORKER_URL, { workerData: { pattern, lineChars } });
  worker.unref(); // A search left running must never keep the process alive.
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => reject(new MatcherStoppedError("the pattern search was stopped"));
    signal.addEventListener("abort", stop, { once: true });
    worker.once("exit", stop);
    worker.once("error", reject); // A crash of the thread itself is a bug, not a timeout.
  });
  stopped.catch(() => {}); // Only awaited through the races below.
  const terminate = () => void worker.terminate();
  signal.addEventListener("abort", terminate, { once: true });
  const close = async () => {
    signal.removeEventListener("abort", terminate);
    await worker.terminate();
  };
  try {
    const ready = await Promise.race([nextMessage<WorkerReady>(worker), stopped]);
    if (ready.type === "invalid") {
      await close();
      return { reason: "invalid", message: ready.message };
    }
  } catch (error) {
    await close();
    if (error instanceof MatcherStoppedError) return { reason: "stopped" };
    throw error;
  }
  return {
    async matchLines(text, limit) {
      worker.postMessage({ kind: "lines", text, limit } satisfies MatchRequest);
      return (await Promise.race([nextMessage<MatchReply>(worker), stopped])).lines;
    },
    async grepFile(text, limit, context) {
      worker.postMessage({ kind: "file", text, limit, context } satisfies GrepRequest);
      return (await Promise.race([nextMessage<GrepReply>(worker), stopped])).matches;
    },
    close,
  };
}

const nextMessage = <T>(worker: Worker): Promise<T> =>
  new Promise((resolve) => worker.once("message", resolve));
