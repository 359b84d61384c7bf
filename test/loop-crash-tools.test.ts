import { describe, expect, it } from "vitest";
import { outcomeUnknown } from "../src/agent/decide.js";
import { resumeSession, sendUserMessage } from "../src/agent/run-turn.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { readFileTool, shellTool } from "../src/tools/builtin/workspace-tools.js";
import { implementTool, success } from "../src/tools/tool.js";
import { dyingStore, loopKit, transcript } from "./support/loop-kit.js";

// An operator type that may run its tools without asking, so the only thing under test is what
// a restart does with a call that was in flight.
const CONFIG = {
  types: {
    operator: {
      extends: "react_agent",
      tools: { packs: ["shell", "filesystem_read"], access: "full", approval: "never" },
      policy_profile: "permissive",
    },
  },
};

/** A kit whose tools count their runs, and a store that dies on the commit of the tool's result. */
async function crashingKit(tool: "shell" | "read_file") {
  const runs = { shell: 0, read_file: 0 };
  const tools = [
    implementTool(shellTool, { idempotent: false }, async () => {
      runs.shell += 1;
      return success("posted");
    }),
    implementTool(readFileTool, { idempotent: true }, async () => {
      runs.read_file += 1;
      return success("contents");
    }),
  ];
  const args = tool === "shell" ? { command: "curl -X POST example.org" } : { path: "a.txt" };
  const model = createSimModel({
    script: [{ toolCalls: [{ name: tool, args }] }, { text: "done" }],
  });
  const kit = await loopKit({ type: "operator", model, config: CONFIG, tools });
  const store = kit.store;
  // The process dies once the tool has run: its result is never committed.
  const dying = dyingStore(store, () => runs[tool] > 0, "killed");

  await expect(
    sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "go" },
      { ...kit.deps, store: dying },
    ),
  ).rejects.toThrow("killed");
  const checkpoint = await store.loadSession(kit.agent.id);
  if (!checkpoint) throw new Error("no checkpoint");
  const resumed = await resumeSession(kit.agent, checkpoint, kit.deps);
  return { runs, resumed, checkpoint };
}

describe("a tool call in flight at a crash (issue #12)", () => {
  it("is not run again when the tool is not idempotent: the model is told its outcome is unknown", async () => {
    const { runs, resumed, checkpoint } = await crashingKit("shell");
    expect(checkpoint.pending[0]?.status).toBe("started");
    expect(runs.shell).toBe(1);
    expect(resumed.stopReason).toBe("end_turn");
    expect(transcript(resumed.messages)).toEqual([
      `tool_return_message: shell error: ${outcomeUnknown("shell")}`,
      "assistant_message: done",
    ]);
  });

  it("runs again when the tool is idempotent", async () => {
    const { runs, resumed, checkpoint } = await crashingKit("read_file");
    expect(checkpoint.pending[0]?.status).toBe("pending");
    expect(runs.read_file).toBe(2);
    expect(transcript(resumed.messages)).toEqual([
      "tool_return_message: read_file success: contents",
      "assistant_message: done",
    ]);
  });
});
