import { describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { createSimModel, type SimReply } from "../src/llm/sim/sim-model.js";
import { loopKit } from "./support/loop-kit.js";

const reply = (message: string): SimReply => ({
  toolCalls: [{ name: "send_message", args: { message, request_heartbeat: false } }],
});
const search = (query: string): SimReply => ({
  toolCalls: [{ name: "conversation_search", args: { query, request_heartbeat: true } }],
});

interface Results {
  message: string;
  results: { timestamp: string; time_ago: string; role: string; content: string }[];
}

describe("conversation_search output (issue 13)", () => {
  it("gives what was said, with time and role, and leaves out the turn's own question", async () => {
    const model = createSimModel({
      script: [
        reply("Your parcel tracking number is ZX-81."),
        search("parcel tracking number"),
        reply("found it"),
      ],
    });
    const kit = await loopKit({ type: "memgpt_agent", model });
    const first = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "what is my parcel tracking number" },
      kit.deps,
    );
    kit.clock.advance(5 * 60_000);
    const asked = await sendUserMessage(
      kit.agent,
      first.state,
      { content: "search for the parcel tracking number again" },
      kit.deps,
    );
    const found = asked.messages.find(
      (m) => m.message_type === "tool_return_message" && m.name === "conversation_search",
    );
    if (found?.message_type !== "tool_return_message") throw new Error("no search return");
    const output = JSON.parse(found.tool_return) as Results;
    expect(output.message).toBe("Showing 2 results:");
    const firstDate = new Date(Date.parse(first.messages[0]?.date ?? "")).toISOString();
    expect(output.results).toEqual(
      expect.arrayContaining([
        {
          timestamp: firstDate,
          time_ago: "5m ago",
          role: "user",
          content: "what is my parcel tracking number",
        },
        {
          timestamp: firstDate,
          time_ago: "5m ago",
          role: "assistant",
          content: "Your parcel tracking number is ZX-81.",
        },
      ]),
    );
    expect(found.tool_return).not.toContain("search for the parcel");
    expect(found.tool_return).not.toContain("request_heartbeat");
  });
});
