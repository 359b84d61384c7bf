import { describe, expect, it } from "vitest";
import { resumeSession, sendUserMessage, wakeFromPause } from "../src/agent/run-turn.js";
import { createSimModel, type SimReply } from "../src/llm/sim/sim-model.js";
import { dyingStore, loopKit, transcript } from "./support/loop-kit.js";

const send = (message: string, again = false): SimReply => ({
  toolCalls: [{ name: "send_message", args: { message, request_heartbeat: again } }],
});

describe("heartbeats", () => {
  it("continues after a tool call only when it asks for a heartbeat", async () => {
    const model = createSimModel({
      script: [send("first", true), send("second", false), send("never")],
    });
    const kit = await loopKit({ type: "memgpt_agent", model });
    const turn = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "talk" },
      kit.deps,
    );
    expect(model.requests).toHaveLength(2);
    expect(turn.stopReason).toBe("end_turn");
    expect(model.requests[0]?.toolChoice).toBe("required");
  });

  it("sleeps on pause_heartbeats until the time the runtime wakes it at", async () => {
    const model = createSimModel({
      script: [
        {
          toolCalls: [{ name: "pause_heartbeats", args: { minutes: 5, request_heartbeat: false } }],
        },
        send("awake again"),
      ],
    });
    const kit = await loopKit({ type: "memgpt_agent", model });
    const start = kit.clock.now();
    const paused = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "rest" },
      kit.deps,
    );
    expect(paused.state.phase).toBe("paused");
    expect(paused.state.pause_until_ms).toBe(start + 5 * 60_000);
    kit.clock.advance(5 * 60_000);
    const woken = await wakeFromPause(kit.agent, paused.state, kit.deps);
    expect(transcript(woken.messages)[0]).toMatch(/^system_message: Heartbeat/);
    expect(woken.state.phase).toBe("idle");
  });
});

describe("tool rules", () => {
  it("offers only the run_first tool on the first call, then everything", async () => {
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "conversation_search", args: { query: "x" } }] },
        { text: "done" },
      ],
    });
    const kit = await loopKit({
      type: "letta_v1_agent",
      model,
      rules: [{ type: "run_first", tool_name: "conversation_search" }],
    });
    await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["conversation_search"]);
    expect(model.requests[0]?.toolChoice).toBe("required");
    expect(model.requests[1]?.tools).toHaveLength(3);
  });

  it("ends the turn after an exit_loop tool and constrains the tools after a parent", async () => {
    const model = createSimModel({
      script: [
        { toolCalls: [{ name: "conversation_search", args: { query: "x" } }] },
        { toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "y" } }] },
        { text: "never reached" },
      ],
    });
    const kit = await loopKit({
      type: "letta_v1_agent",
      model,
      rules: [
        {
          type: "constrain_child_tools",
          tool_name: "conversation_search",
          children: ["memory_insert"],
        },
        { type: "exit_loop", tool_name: "memory_insert" },
      ],
    });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
    expect(model.requests[1]?.tools.map((t) => t.name)).toEqual(["memory_insert"]);
    expect(turn.stopReason).toBe("tool_rule");
    expect(model.requests).toHaveLength(2);
  });

  it("rejects calls past max_count_per_step and makes the model call a required tool before exit", async () => {
    const search = { toolCalls: [{ name: "conversation_search", args: { query: "x" } }] };
    const model = createSimModel({
      script: [search, search, { text: "bye" }, { text: "bye after all" }],
    });
    const kit = await loopKit({
      type: "letta_v1_agent",
      model,
      rules: [
        { type: "max_count_per_step", tool_name: "conversation_search", max_count_limit: 1 },
        { type: "required_before_exit", tool_name: "memory_replace" },
      ],
    });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
    const lines = transcript(turn.messages);
    expect(lines).toContain(
      "tool_return_message: conversation_search error: tool 'conversation_search' may not be called now (tool rules)",
    );
    expect(lines).toContain("system_message: Before finishing you must call: memory_replace.");
    expect(model.requests[1]?.tools.map((t) => t.name)).not.toContain("conversation_search");
  });
});

describe("context window", () => {
  it("folds the oldest messages into a summary at the head of the request, and deletes nothing", async () => {
    const model = createSimModel({ contextWindow: 5000 });
    const kit = await loopKit({ type: "tutor", model });
    let state = await kit.session();
    for (let i = 0; i < 40; i += 1) {
      state = (
        await sendUserMessage(
          kit.agent,
          state,
          { content: `message ${i} ${"word ".repeat(40)}` },
          kit.deps,
        )
      ).state;
    }
    const last = model.requests.at(-1);
    expect(last?.messages[0]?.content).toMatch(/Summary of the \d+ earlier messages/);
    expect(last?.messages.length).toBeLessThan(80);
    expect(await kit.messages(kit.agent.id)).toHaveLength(80);
  });

  it("stops with context_window_overflow_in_system_prompt when the system prompt cannot fit", async () => {
    const model = createSimModel({ contextWindow: 4200 });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    const turn = await sendUserMessage(kit.agent, await kit.session(), { content: "hi" }, kit.deps);
    expect(turn.stopReason).toBe("context_window_overflow_in_system_prompt");
    expect(model.requests).toHaveLength(0);
  });
});

describe("determinism and recovery", () => {
  it("gives the same transcript, ids included, for the same script", async () => {
    const run = async () => {
      const kit = await loopKit({ type: "memgpt_agent", model: createSimModel() });
      const turn = await sendUserMessage(
        kit.agent,
        await kit.session(),
        { content: "My name is Ada" },
        kit.deps,
      );
      return (await kit.messages(kit.agent.id)).concat(turn.messages);
    };
    expect(await run()).toEqual(await run());
  });

  it("resumes an interrupted turn from its last checkpoint and applies memory edits once", async () => {
    const kit = await loopKit({ type: "memgpt_agent", model: createSimModel() });
    let commits = 0;
    const crashingStore = dyingStore(kit.store, () => {
      commits += 1;
      return commits === 4;
    });

    const crashing = { ...kit.deps, store: crashingStore };
    await expect(
      sendUserMessage(kit.agent, await kit.session(), { content: "My name is Ada" }, crashing),
    ).rejects.toThrow("crash");
    const checkpoint = await kit.store.loadSession(kit.agent.id);
    expect(checkpoint?.phase).toBe("running");
    const resumed = await resumeSession(kit.agent, checkpoint ?? (await kit.session()), kit.deps);
    expect(resumed.stopReason).toBe("end_turn");
    const human = (await kit.store.loadBlocks(kit.agent.id)).find((b) => b.label === "human");
    expect(human?.value).toBe("My name is Ada");
    const appends = (await kit.messages()).filter(
      (m) => m.message_type === "tool_return_message" && m.name === "core_memory_append",
    );
    expect(appends).toHaveLength(1);
  });

  it("streams deltas that carry the id of the message they become", async () => {
    const model = createSimModel({ script: [{ text: "hello there friend" }] });
    const kit = await loopKit({ type: "letta_v1_agent", model });
    await sendUserMessage(kit.agent, await kit.session(), { content: "hi" }, kit.deps);
    const deltas = kit.events.filter((e) => e.type === "delta");
    const final = kit.events.find(
      (e) => e.type === "message" && e.message.message_type === "assistant_message",
    );
    expect(deltas.map((d) => (d.type === "delta" ? d.text : "")).join("")).toBe(
      "hello there friend",
    );
    expect(new Set(deltas.map((d) => (d.type === "delta" ? d.id : "")))).toEqual(
      new Set([final?.type === "message" ? final.message.id : "missing"]),
    );
    expect(kit.events.slice(-2).map((e) => e.type)).toEqual(["stop", "usage"]);
  });
});
