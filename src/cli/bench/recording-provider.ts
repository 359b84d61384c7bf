import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** What the recording provider answers: text, or one tool call. */
export type RecordedReply = { text: string } | { tool: string; input: Record<string, unknown> };

export interface RecordingProvider {
  /** Anthropic's API root on this server (`ANTHROPIC_BASE_URL`). */
  baseUrl: string;
  /** Every request body, parsed, in the order received. */
  bodies: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * A local server speaking just enough of Anthropic's Messages API (streamed) for the bench to
 * record the exact request bodies Holdfast's model adapter sends: the AI SDK's own serialiser
 * builds them, so the prefix figure is measured on the wire, not on our idea of the prompt.
 */
export async function startRecordingProvider(
  replyFor: (body: Record<string, unknown>, call: number) => RecordedReply,
): Promise<RecordingProvider> {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/v1/messages")) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      bodies.push(body);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const call = bodies.length - 1;
      for (const event of streamOf(replyFor(body, call), call)) {
        res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The SSE events of one streamed Anthropic message holding `reply`. */
function streamOf(reply: RecordedReply, call: number): Record<string, unknown>[] {
  const usage = { input_tokens: 1, output_tokens: 1 };
  const message = { id: "msg_bench", type: "message", role: "assistant", model: "bench" };
  const start = { ...message, content: [], stop_reason: null, stop_sequence: null, usage };
  const block =
    "text" in reply
      ? [
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          {
            type: "content_block_delta",
            index: 0,
            delta: { type: "text_delta", text: reply.text },
          },
        ]
      : [
          {
            type: "content_block_start",
            index: 0,
            content_block: {
              type: "tool_use",
              id: `toolu_bench_${call}`,
              name: reply.tool,
              input: {},
            },
          },
          {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: JSON.stringify(reply.input) },
          },
        ];
  return [
    { type: "message_start", message: start },
    ...block,
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: "text" in reply ? "end_turn" : "tool_use", stop_sequence: null },
      usage: { output_tokens: 1 },
    },
    { type: "message_stop" },
  ];
}
