import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deliverChildResults, sendUserMessage, submitApprovals } from "../src/agent/run-turn.js";
import { systemClock } from "../src/core/clock.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { loopKit, transcript } from "./support/loop-kit.js";

const roots: string[] = [];
function workspace(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "holdfast-ws-"));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const approveAll = (state: Awaited<ReturnType<typeof sendUserMessage>>["state"]) =>
  state.pending
    .filter((call) => call.status === "awaiting_approval")
    .map((call) => ({ tool_call_id: call.tool_call.tool_call_id, approve: true, reason: null }));

describe("built-in types with workspace tools complete scripted conversations", () => {
  it("react_agent asks once to use the shell, runs the command in its workspace, and answers", async () => {
    const root = workspace({ "notes.txt": "hello" });
    const kit = await loopKit({
      type: "react_agent",
      model: createSimModel(),
      workspaceRoot: root,
    });
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "run: cat notes.txt" },
      kit.deps,
    );
    expect(asked.stopReason).toBe("requires_approval");
    const done = await submitApprovals(kit.agent, asked.state, approveAll(asked.state), kit.deps);
    expect(transcript(done.messages)).toEqual([
      "approval_response_message: approve",
      "tool_return_message: shell success: exit code: 0\nhello",
      "assistant_message: The command printed: exit code: 0\nhello",
    ]);
    const again = await sendUserMessage(kit.agent, done.state, { content: "run: ls" }, kit.deps);
    expect(again.stopReason).toBe("end_turn");
  });

  it("verifier reads files and is never offered a way to change them", async () => {
    const root = workspace({ "report.md": "all tests pass" });
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "read_file", args: { path: "report.md" } }] },
        { text: "verified" },
      ],
    });
    const kit = await loopKit({ type: "verifier", model, workspaceRoot: root });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "check the report" },
      kit.deps,
    );
    expect(transcript(turn.messages)).toEqual([
      "user_message: check the report",
      'tool_call_message: read_file {"path":"report.md"}',
      "tool_return_message: read_file success: all tests pass",
      "assistant_message: verified",
    ]);
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual([
      "read_file",
      "list_directory",
      "search_files",
    ]);
  });

  it("developer writes a file only after the human approves it", async () => {
    const root = workspace();
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "write_file", args: { path: "out.txt", content: "42" } }] },
        { text: "written" },
      ],
    });
    const kit = await loopKit({ type: "developer", model, workspaceRoot: root });
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "write the answer" },
      kit.deps,
    );
    expect(transcript(asked.messages).at(-1)).toBe(
      'approval_request_message: write_file {"path":"out.txt","content":"42"}',
    );
    expect(() => readFileSync(join(root, "out.txt"))).toThrow();
    const done = await submitApprovals(kit.agent, asked.state, approveAll(asked.state), kit.deps);
    expect(done.stopReason).toBe("end_turn");
    expect(readFileSync(join(root, "out.txt"), "utf8")).toBe("42");
  });

  it("researcher reads within its allow list; web_search is not offered without a search provider", async () => {
    const root = workspace({ "source.txt": "The bridge opened in 1932." });
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "read_file", args: { path: "source.txt" } }] },
        { text: "It opened in 1932." },
      ],
    });
    const kit = await loopKit({ type: "researcher", model, workspaceRoot: root });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "when did it open?" },
      kit.deps,
    );
    expect(transcript(turn.messages).at(-1)).toBe("assistant_message: It opened in 1932.");
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["web_fetch", "read_file"]);
  });

  it("orchestrator lists the types, spawns a sub-agent, sleeps until it answers, and goes on with its result", async () => {
    const model = createSimModel({
      script: (request) => {
        const last = request.messages.at(-1);
        if (request.tools.some((t) => t.name === "spawn_agent")) {
          if (last?.role === "user") return { toolCalls: [{ name: "list_agent_types", args: {} }] };
          if (last?.role === "tool" && last.toolName === "list_agent_types") {
            return {
              toolCalls: [
                {
                  name: "spawn_agent",
                  args: { agent_type: "qa_assistant", prompt: "capital of France?" },
                },
              ],
            };
          }
          return {
            text: `Sub-agent said: ${last?.role === "tool" ? last.content.split("\n")[1] : ""}`,
          };
        }
        return { text: "Paris" };
      },
    });
    const kit = await loopKit({ type: "orchestrator", model });
    const spawned: string[] = [];
    const children = {
      spawn: async (request: { toolCallId: string; agentType: string; prompt: string }) => {
        spawned.push(`${request.agentType}: ${request.prompt}`);
        return { ok: true as const, childId: "agent-child" };
      },
    };
    const deps = { ...kit.deps, children };
    const asleep = await sendUserMessage(kit.agent, await kit.session(), { content: "ask" }, deps);
    expect(spawned).toEqual(["qa_assistant: capital of France?"]);
    expect(asleep.state.phase).toBe("awaiting_children");
    expect(asleep.state.pending[0]).toMatchObject({
      status: "awaiting_child",
      child_agent_id: "agent-child",
    });
    // What a restart would find: the wait is in the checkpoint.
    expect((await kit.session()).phase).toBe("awaiting_children");
    const answer = {
      status: "success" as const,
      output: "qa_assistant (agent-child) stopped with end_turn:\nParis",
    };
    const turn = await deliverChildResults(
      kit.agent,
      await kit.session(),
      [{ index: 0, result: answer }],
      deps,
    );
    const lines = transcript(await kit.messages());
    expect(lines[2]).toMatch(/^tool_return_message: list_agent_types success: memgpt_agent: /);
    expect(lines[4]).toMatch(
      /^tool_return_message: spawn_agent success: qa_assistant \(agent-child\) stopped with end_turn:\nParis$/,
    );
    expect(lines.at(-1)).toBe("assistant_message: Sub-agent said: Paris");
    expect(turn.stopReason).toBe("end_turn");
  });

  it("refuses a spawn where no engine can start sub-agents, as a tool error", async () => {
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "spawn_agent", args: { agent_type: "qa_assistant", prompt: "x" } }] },
        { text: "could not" },
      ],
    });
    const kit = await loopKit({ type: "orchestrator", model });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
    expect(transcript(turn.messages)[2]).toBe(
      "tool_return_message: spawn_agent error: sub-agents cannot be spawned here",
    );
  });
});

describe("workspace confinement, as the model sees it", () => {
  it("refuses a path that escapes the workspace with an error tool return", async () => {
    const root = workspace();
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "read_file", args: { path: "../../etc/passwd" } }] },
        { text: "refused" },
      ],
    });
    const kit = await loopKit({ type: "verifier", model, workspaceRoot: root });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "read it" },
      kit.deps,
    );
    expect(transcript(turn.messages)[2]).toMatch(
      /^tool_return_message: read_file error: .*climbs out of the workspace/,
    );
  });

  it("stops a shell command at its timeout and says so", async () => {
    const root = workspace();
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "shell", args: { command: "sleep 5", timeout_ms: 200 } }] },
        { text: "too slow" },
      ],
    });
    const config = { types: { runner: { extends: "react_agent", policy_profile: "permissive" } } };
    // A real process needs real time: the shell's timer runs on the system clock here.
    const kit = await loopKit({
      type: "runner",
      model,
      config,
      workspaceRoot: root,
      clock: systemClock,
    });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "wait" },
      kit.deps,
    );
    expect(transcript(turn.messages)[2]).toMatch(
      /^tool_return_message: shell error: .*timed out after 200 ms/,
    );
  });
});
