import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import type { AgentEvent } from "../runtime/agent-events.js";
import type { AppEnv } from "./auth.js";
import { errorFrame, type Frame, type FrameMapper } from "./sse-frames.js";

/**
 * Frames written in order; once the client has gone, frames are dropped (what produces them
 * goes on: runs belong to their agents, not to connections). Each frame waits for `flush`, the
 * store's durability barrier, so a client never sees a message that power loss could take back
 * (frames queued together share one flush).
 */
export function frameWriter(sse: SSEStreamingApi, flush: () => Promise<void>) {
  let open = true;
  sse.onAbort(() => {
    open = false;
  });
  let writing = Promise.resolve();
  return {
    write(frame: Frame) {
      if (!open) return;
      writing = writing
        .then(flush)
        .then(() => sse.writeSSE(frame))
        .catch(() => undefined);
    },
    get open() {
      return open;
    },
    /** Resolves when every frame so far is written (or dropped). */
    drained: () => writing,
  };
}

/**
 * Streams a run's events as Letta's SSE: `produce` hands each event to the stream as it
 * happens; a failure becomes a stop reason and an error frame; `[DONE]` ends it.
 */
export function streamEvents(
  c: Context<AppEnv>,
  mapper: FrameMapper,
  produce: (onEvent: (event: AgentEvent) => void) => Promise<void>,
) {
  return streamSSE(c, async (sse) => {
    const out = frameWriter(sse, c.get("flush"));
    try {
      await produce((event) => {
        for (const frame of mapper.frames(event)) out.write(frame);
      });
    } catch (error) {
      out.write({ data: JSON.stringify({ message_type: "stop_reason", stop_reason: "error" }) });
      out.write(errorFrame(error instanceof Error ? error.message : String(error), codeOf(error)));
    }
    out.write({ data: "[DONE]" });
    await out.drained();
  });
}

export const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error
    ? String(error.code)
    : "internal_error";
