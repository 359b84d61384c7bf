import { describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { loopKit, transcript } from "./support/loop-kit.js";

describe("memgpt_agent on the sim model", () => {
  it("stores what the user says in core memory, then replies through send_message", async () => {
    const kit = await loopKit({ type: "memgpt_agent", model: createSimModel() });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "My name is Ada" },
      kit.deps,
    );
    expect(transcript(await kit.messages(kit.agent.id))).toEqual([
      "user_message: My name is Ada",
      'tool_call_message: core_memory_append {"label":"human","content":"My name is Ada","request_heartbeat":true}',
      "tool_return_message: core_memory_append success: block 'human' now holds 14 of 5000 characters",
      'tool_call_message: send_message {"message":"Noted. I will remember that.","request_heartbeat":false}',
      "tool_return_message: send_message success: sent",
    ]);
    expect(turn.stopReason).toBe("end_turn");
    expect(turn.state.phase).toBe("idle");
    const human = (await kit.store.loadBlocks(kit.agent.id)).find((b) => b.label === "human");
    expect(human?.value).toBe("My name is Ada");

    const second = await sendUserMessage(
      kit.agent,
      turn.state,
      { content: "What is my name?" },
      kit.deps,
    );
    expect(transcript(second.messages).at(-2)).toBe(
      'tool_call_message: send_message {"message":"From my memory of you: My name is Ada","request_heartbeat":false}',
    );
  });
});
