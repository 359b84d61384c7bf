import { describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { endSession, LEARN_PROMPT, LEARNED_TAG } from "../src/agent/session-end.js";
import { ModelError } from "../src/llm/model-error.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { dyingStore, loopKit } from "./support/loop-kit.js";

const LESSON = "Ada takes her tea without sugar.";
const config = { types: { learner: { extends: "letta_v1_agent", memory: { depth: "learning" } } } };

function learner(fail: () => boolean = () => false) {
  const model = createSimModel({
    script: (request) => {
      if (request.system !== LEARN_PROMPT) return { text: "ok" };
      return fail() ? new ModelError("server", "down") : { text: LESSON };
    },
  });
  return { model, lessons: () => model.requests.filter((r) => r.system === LEARN_PROMPT) };
}

async function learned(kit: Awaited<ReturnType<typeof loopKit>>) {
  const all = await kit.store.listPassages(kit.agent.id, { limit: 100, order: "asc" });
  return all.filter((p) => p.tags.includes(LEARNED_TAG));
}

describe("a learning agent's lesson at a session's end (issue 13)", () => {
  it("is written once, even when the process dies between ending the session and writing it", async () => {
    const { model, lessons } = learner();
    const kit = await loopKit({ type: "learner", model, config });
    const said = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "I take tea without sugar" },
      kit.deps,
    );
    // The new session's checkpoint is committed, then the process dies before the lesson is.
    let commits = 0;
    const store = dyingStore(kit.store, () => ++commits > 1);
    await expect(endSession(kit.agent, said.state, { ...kit.deps, store })).rejects.toThrow(
      "crash",
    );
    const stored = await kit.session();
    expect(stored.learning).toMatchObject({ session_id: said.state.session_id });
    expect(await learned(kit)).toEqual([]);
    // The lesson still pending is written before the next turn, and only then.
    const next = await sendUserMessage(kit.agent, stored, { content: "hello again" }, kit.deps);
    expect(next.state.learning).toBeNull();
    expect((await learned(kit)).map((p) => p.text)).toEqual([LESSON]);
    await sendUserMessage(kit.agent, next.state, { content: "and again" }, kit.deps);
    expect(await learned(kit)).toHaveLength(1);
    expect(lessons()).toHaveLength(2);
  });

  it("stays pending while the model fails, and is written once it answers", async () => {
    let down = true;
    const { model } = learner(() => down);
    const kit = await loopKit({ type: "learner", model, config });
    const said = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "I take tea without sugar" },
      kit.deps,
    );
    const ended = await endSession(kit.agent, said.state, kit.deps);
    expect(ended.learning).not.toBeNull();
    expect((await kit.session()).learning).not.toBeNull();
    expect(kit.events).toContainEqual(expect.objectContaining({ type: "error", retryable: true }));
    down = false;
    await sendUserMessage(kit.agent, ended, { content: "hello" }, kit.deps);
    expect((await learned(kit)).map((p) => p.text)).toEqual([LESSON]);
  });

  it("ends a session idle past its type's limit when the next message comes", async () => {
    const { model, lessons } = learner();
    const kit = await loopKit({ type: "learner", model, config });
    const first = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "I take tea without sugar" },
      kit.deps,
    );
    kit.clock.advance(59 * 60_000);
    const soon = await sendUserMessage(kit.agent, first.state, { content: "still here" }, kit.deps);
    expect(soon.state.session_id).toBe(first.state.session_id);
    expect(lessons()).toHaveLength(0);
    kit.clock.advance(61 * 60_000);
    const later = await sendUserMessage(
      kit.agent,
      soon.state,
      { content: "back after lunch" },
      kit.deps,
    );
    expect(later.state.session_id).not.toBe(first.state.session_id);
    expect(lessons()).toHaveLength(1);
    expect(JSON.stringify(lessons()[0]?.messages)).toContain("still here");
    expect(JSON.stringify(lessons()[0]?.messages)).not.toContain("back after lunch");
  });
});
