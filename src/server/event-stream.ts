import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { AgentEvent } from "../runtime/agent-events.js";
import type { AppEnv } from "./auth.js";
import { errorFrame, type FrameMapper } from "./sse-frames.js";

/**
 * Streams a run's events as Letta's SSE: `produce` hands each event to the stream as it
 * happens; a failure becomes a stop reason and an error frame; `[DONE]` ends it. The run
 * belongs to its agent, not to the connection: if the client goes away, frames are dropped and
 * the run goes on.
 */
export function streamEvents(
  c: Context<AppEnv>,
  mapper: FrameMapper,
  produce: (onEvent: (event: AgentEvent) => void) => Promise<void>,
) {
  return streamSSE(c, async (sse) => {
    let open = true;
    sse.onAbort(() => {
      open = false;
    });
    let writing = Promise.resolve();
    const write = (frame: { event?: string; data: string }) => {
      if (open) writing = writing.then(() => sse.writeSSE(frame)).catch(() => undefined);
    };
    try {
      await produce((event) => {
        for (const frame of mapper.frames(event)) write(frame);
      });
    } catch (error) {
      write({ data: JSON.stringify({ message_type: "stop_reason", stop_reason: "error" }) });
      write(errorFrame(error instanceof Error ? error.message : String(error), codeOf(error)));
    }
    write({ data: "[DONE]" });
    await writing;
  });
}

const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error
    ? String(error.code)
    : "internal_error";
