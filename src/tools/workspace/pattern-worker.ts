import { parentPort, workerData } from "node:worker_threads";
import { RE2JS } from "re2js";

/**
 * The thread that runs a search pattern against file text. Matching happens here, never on the
 * server's event loop: RE2 is linear in the text, but a pattern with many nested repetitions
 * still costs seconds on a long line, and the tool's timeout can only stop work it can kill.
 * Only `node:` and package imports: under tests Node loads this file as TypeScript itself.
 */

/** Sent once at start: the pattern compiled, or why it does not compile. */
export type WorkerReady = { type: "ready" } | { type: "invalid"; message: string };
/** One file's text and how many matching lines the caller still wants. */
export type MatchRequest = { kind: "lines"; text: string; limit: number };
/** The matching lines of that text: 0-based index and the line (cut to `lineChars`). */
export type MatchReply = { lines: [number, string][] };
/**
 * An attached file's content, searched in the lines an agent sees (`fileLines` of
 * memory/file-view.ts): splitting a large file is work too, so it happens here as well.
 */
export type GrepRequest = { kind: "file"; text: string; limit: number; context: number };
/** Each matching line's 0-based index among the agent's lines, with `context` lines around it. */
export type GrepReply = { matches: { index: number; from: number; lines: string[] }[] };

const { pattern, lineChars } = workerData as { pattern: string; lineChars: number };
const port = parentPort;
if (port === null) throw new Error("pattern-worker must run as a worker thread");

let compiled: RE2JS | undefined;
try {
  compiled = RE2JS.compile(pattern);
  port.postMessage({ type: "ready" } satisfies WorkerReady);
} catch (error) {
  port.postMessage({ type: "invalid", message: (error as Error).message } satisfies WorkerReady);
}

/**
 * The lines an agent sees: `fileLines` of memory/file-view.ts, which this file cannot import
 * (see above); a test holds the two to the same lines.
 */
function agentLines(content: string): string[] {
  return content
    .split(/\r\n|\r|\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "");
}

port.on("message", (request: MatchRequest | GrepRequest) => {
  if (request.kind === "file") {
    const matches: GrepReply["matches"] = [];
    const lines = agentLines(request.text);
    for (const [index, line] of lines.entries()) {
      if (compiled === undefined || matches.length >= request.limit) break;
      if (!compiled.matcher(line).find()) continue;
      const from = Math.max(0, index - request.context);
      matches.push({ index, from, lines: lines.slice(from, index + request.context + 1) });
    }
    port.postMessage({ matches } satisfies GrepReply);
    return;
  }
  const lines: [number, string][] = [];
  if (compiled !== undefined) {
    for (const [index, line] of request.text.split(/\r?\n/).entries()) {
      if (lines.length >= request.limit) break;
      if (compiled.matcher(line).find()) lines.push([index, line.slice(0, lineChars)]);
    }
  }
  port.postMessage({ lines } satisfies MatchReply);
});
