import type { SSEStreamingApi } from "hono/streaming";
import { describe, expect, it } from "vitest";
import { frameWriter } from "./event-stream.js";

/** An SSE stream that records what is written, and a flush the test releases by hand. */
function rig() {
  const written: string[] = [];
  const sse = {
    onAbort: () => {},
    writeSSE: async (frame: { data: string }) => {
      written.push(frame.data);
    },
  } as unknown as SSEStreamingApi;
  const releases: (() => void)[] = [];
  let flushes = 0;
  const flush = () => {
    flushes += 1;
    return new Promise<void>((release) => releases.push(release));
  };
  return { sse, written, releases, flush, flushes: () => flushes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("frameWriter (decision 030)", () => {
  it("writes no frame before the store's flush has resolved, and keeps their order", async () => {
    const { sse, written, releases, flush } = rig();
    const out = frameWriter(sse, flush);
    out.write({ data: "first" });
    out.write({ data: "second" });
    await tick();
    expect(written).toEqual([]);
    releases.shift()?.();
    await tick();
    expect(written).toEqual(["first"]);
    releases.shift()?.();
    await out.drained();
    expect(written).toEqual(["first", "second"]);
  });

  it("drops frames once the flush fails rather than send what may not be on disk", async () => {
    const written: string[] = [];
    const sse = {
      onAbort: () => {},
      writeSSE: async (frame: { data: string }) => void written.push(frame.data),
    } as unknown as SSEStreamingApi;
    const out = frameWriter(sse, () => Promise.reject(new Error("EIO")));
    out.write({ data: "unsafe" });
    await out.drained();
    expect(written).toEqual([]);
  });
});
