import { describe, expect, it } from "vitest";
import { replayRun } from "../src/agent/replay.js";
import { resumeSession, sendUserMessage, submitApprovals } from "../src/agent/run-turn.js";
import { createTurnAgent } from "../src/agent/turn-agent.js";
import { builtinConfig } from "../src/config/config-file.js";
import { createSimModel, type SimReply } from "../src/llm/sim/sim-model.js";
import type { ToolRule } from "../src/records/tool-rule.js";
import { shellTool } from "../src/tools/builtin/workspace-tools.js";
import { implementTool, success } from "../src/tools/tool.js";
import { dyingStore, loopKit } from "./support/loop-kit.js";

const search = (query: string): SimReply => ({
  toolCalls: [{ name: "conversation_search", args: { query } }],
});
const insert = (text: string): SimReply => ({
  toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: text } }],
});

/** A recorded letta_v1 run: search, remember, answer. Replays against `rules` and `type`. */
async function recorded(options: { rules?: ToolRule[] } = {}) {
  const model = createSimModel({ script: [search("x"), insert("likes tea"), { text: "done" }] });
  const kit = await loopKit({ type: "letta_v1_agent", model, ...options });
  const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
  const runId = turn.state.run_id ?? "";
  const journal = await kit.store.listRunJournal(runId);
  const { registry, catalogue } = builtinConfig();
  const today = (rules: ToolRule[], type = "letta_v1_agent") => {
    const resolved = registry.get(type);
    if (!resolved) throw new Error(`no type ${type}`);
    const agent = createTurnAgent({ id: "agent-1", type: resolved, rules, catalogue });
    return replayRun(journal, agent.config, kit.deps.tools, runId);
  };
  return { kit, turn, journal, today, model };
}

describe("replay", () => {
  it("reports a match for a run replayed against the code and config that made it", async () => {
    const { today, turn, journal } = await recorded();
    expect(turn.stopReason).toBe("end_turn");
    expect(journal[0]?.kind).toBe("begin");
    expect(journal.at(-1)).toEqual({ kind: "finish", stop_reason: "end_turn" });
    expect(today([])).toEqual({ matches: true, steps: 6, complete: true });
  });

  it("calls no model when it replays", async () => {
    const { today, model } = await recorded();
    const calls = model.requests.length;
    today([]);
    expect(model.requests.length).toBe(calls);
  });

  it("reports the step where a new requires_approval rule stops the run", async () => {
    const { today } = await recorded();
    const outcome = today([{ type: "requires_approval", tool_name: "memory_insert" }]);
    expect(outcome).toMatchObject({
      matches: false,
      step: 4,
      expected: "run 'memory_insert' (call 0)",
      actual: "ask for approval of 'memory_insert' (call 0)",
      reason: "a requires_approval tool rule now covers 'memory_insert'",
    });
  });

  it("reports the model call offered other tools under a new run_first rule", async () => {
    const { today } = await recorded();
    const outcome = today([{ type: "run_first", tool_name: "memory_insert" }]);
    expect(outcome).toMatchObject({ matches: false, step: 1 });
    if (outcome.matches) return;
    expect(outcome.expected).toContain("conversation_search");
    expect(outcome.actual).toBe("tools offered: memory_insert");
    expect(outcome.reason).toMatch(/offer the model different tools/);
  });

  it("reports the step where an exit_loop rule ends the turn early", async () => {
    const { today } = await recorded();
    const outcome = today([{ type: "exit_loop", tool_name: "conversation_search" }]);
    expect(outcome).toMatchObject({
      matches: false,
      step: 3,
      expected: "call the model",
      actual: "end the turn (tool_rule)",
      reason: "an exit_loop tool rule now ends the turn after 'conversation_search'",
    });
  });

  it("reports the step where a type with a lower iteration limit stops", async () => {
    const config = {
      types: { short: { extends: "letta_v1_agent", limits: { max_iterations: 2 } } },
    };
    const model = createSimModel({ script: [search("x"), insert("tea"), { text: "done" }] });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
    const runId = turn.state.run_id ?? "";
    const short = await loopKit({ type: "short", model, config });
    const outcome = replayRun(
      await kit.store.listRunJournal(runId),
      short.agent.config,
      kit.deps.tools,
      runId,
    );
    expect(outcome).toMatchObject({ matches: false, step: 5 });
    if (outcome.matches) return;
    expect(outcome.reason).toMatch(/today's max_iterations is 2/);
  });

  it("replays a run across an approval with the human's recorded decision", async () => {
    const rules: ToolRule[] = [{ type: "requires_approval", tool_name: "memory_insert" }];
    const model = createSimModel({ script: [insert("tea"), { text: "noted" }] });
    const kit = await loopKit({ type: "letta_v1_agent", model, rules });
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "go" },
      kit.deps,
    );
    const callId = asked.state.pending[0]?.tool_call.tool_call_id ?? "";
    const decision = { tool_call_id: callId, approve: true, reason: null };
    const done = await submitApprovals(kit.agent, asked.state, [decision], kit.deps);
    expect(done.stopReason).toBe("end_turn");
    const runId = done.state.run_id ?? "";
    const journal = await kit.store.listRunJournal(runId);
    expect(replayRun(journal, kit.agent.config, kit.deps.tools, runId)).toMatchObject({
      matches: true,
      complete: true,
    });
    const { catalogue, registry } = builtinConfig();
    const v1 = registry.get("letta_v1_agent");
    if (!v1) throw new Error("no letta_v1_agent");
    const without = createTurnAgent({ id: "a", type: v1, catalogue });
    expect(replayRun(journal, without.config, kit.deps.tools, runId)).toMatchObject({
      matches: false,
      expected: "ask for approval of 'memory_insert' (call 0)",
      actual: "run 'memory_insert' (call 0)",
      reason: "'memory_insert' no longer needs approval",
    });
  });
});

describe("replay across a crash", () => {
  const CONFIG = {
    types: {
      operator: {
        extends: "react_agent",
        tools: { packs: ["shell"], access: "full", approval: "never" },
        policy_profile: "permissive",
      },
    },
  };

  it("matches a run whose non-idempotent call was in flight at a crash and not run again", async () => {
    let runs = 0;
    const shell = implementTool(shellTool, { idempotent: false }, async () => {
      runs += 1;
      return success("posted");
    });
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "shell", args: { command: "curl -X POST x" } }] },
        { text: "ok" },
      ],
    });
    const kit = await loopKit({ type: "operator", model, config: CONFIG, tools: [shell] });
    const dying = dyingStore(kit.store, () => runs > 0, "killed");
    const deps = { ...kit.deps, store: dying };
    await expect(
      sendUserMessage(kit.agent, await kit.session(), { content: "go" }, deps),
    ).rejects.toThrow("killed");
    const checkpoint = await kit.store.loadSession(kit.agent.id);
    if (!checkpoint?.run_id) throw new Error("no checkpoint");
    const resumed = await resumeSession(kit.agent, checkpoint, kit.deps);
    expect(resumed.stopReason).toBe("end_turn");
    const journal = await kit.store.listRunJournal(checkpoint.run_id);
    expect(journal.map((entry) => entry.kind)).toEqual([
      "begin",
      "step",
      "started",
      "step",
      "step",
      "finish",
    ]);
    expect(replayRun(journal, kit.agent.config, kit.deps.tools, checkpoint.run_id)).toEqual({
      matches: true,
      steps: 4,
      complete: true,
    });
  });
});

describe("replay of other shapes of run", () => {
  it("matches a memgpt run whose tools reply and pause, and names a heartbeat change", async () => {
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "send_message", args: { message: "hi", request_heartbeat: true } }] },
        {
          toolCalls: [{ name: "pause_heartbeats", args: { minutes: 5, request_heartbeat: false } }],
        },
      ],
    });
    const kit = await loopKit({ type: "memgpt_agent", model });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
    expect(turn.state.phase).toBe("paused");
    const runId = turn.state.run_id ?? "";
    const journal = await kit.store.listRunJournal(runId);
    expect(replayRun(journal, kit.agent.config, kit.deps.tools, runId)).toMatchObject({
      matches: true,
      complete: true,
    });
    const exits = [{ type: "exit_loop" as const, tool_name: "send_message" }];
    const strict = { ...kit.agent.config, rules: exits };
    expect(replayRun(journal, strict, kit.deps.tools, runId)).toMatchObject({
      matches: false,
      actual: "end the turn (tool_rule)",
    });
  });

  it("matches a run still waiting for approval so far, and says it has not ended", async () => {
    const rules: ToolRule[] = [{ type: "requires_approval", tool_name: "memory_insert" }];
    const model = createSimModel({ script: [insert("tea")] });
    const kit = await loopKit({ type: "letta_v1_agent", model, rules });
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "go" },
      kit.deps,
    );
    const runId = asked.state.run_id ?? "";
    const journal = await kit.store.listRunJournal(runId);
    expect(replayRun(journal, kit.agent.config, kit.deps.tools, runId)).toEqual({
      matches: true,
      steps: 3,
      complete: false,
    });
  });
});
