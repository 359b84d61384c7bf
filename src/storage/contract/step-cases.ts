import { describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "../../core/errors.js";
import type { StepRecord } from "../../records/step-record.js";
import {
  asc,
  type ContractContext,
  desc,
  ids,
  run,
  type StoreContractOptions,
  step,
  userMessage,
} from "./fixtures.js";

/** A step record of `agentId` in `runId`, answered by `model`, created at `atMs`. */
export function stepRecord(
  id: string,
  agentId: string,
  runId: string | null = "run-1",
  model = "openai/gpt-4.1-mini",
  atMs = 2_000,
): StepRecord {
  return {
    id,
    agent_id: agentId,
    run_id: runId,
    status: "success",
    model,
    fallbacks: [],
    prompt_tokens: 120,
    completion_tokens: 30,
    cached_input_tokens: 20,
    cache_write_input_tokens: 0,
    model_latency_ms: 850,
    queue_wait_ms: 0,
    finish_reason: "tool_calls",
    stop_reason: null,
    error: null,
    tool_calls: [
      { tool_call_id: "call-1", name: "web_search", outcome: "pending", duration_ms: null },
    ],
    created_at_ms: atMs,
  };
}

/** Step records: written with a step's checkpoint, updated in place, listed per project. */
export function stepCases(t: ContractContext, options: StoreContractOptions): void {
  describe("step records", () => {
    it("sets feedback on a step and keeps it through the turn's later updates", async () => {
      const a = await t.createAgent();
      const first = stepRecord("step-f", a);
      await t.store.commit(step(a, { run: run("run-1", a), steps: [first] }));
      expect(await t.store.setStepFeedback("step-f", "positive", ["helpful"])).toEqual({
        ...first,
        feedback: "positive",
        tags: ["helpful"],
      });
      const update = { id: "step-f", tool_calls: [], stop_reason: "end_turn" as const };
      await t.store.commit(step(a, { stepUpdates: [update] }));
      expect(await t.store.getStep("step-f")).toMatchObject({
        feedback: "positive",
        tags: ["helpful"],
        stop_reason: "end_turn",
      });
      // Null clears the feedback; no tags keeps the tags (Letta's add_feedback).
      expect(await t.store.setStepFeedback("step-f", null, null)).toMatchObject({
        feedback: null,
        tags: ["helpful"],
      });
      expect(await t.store.setStepFeedback("step-none", "negative", null)).toBeNull();
    });

    it("writes a step record with its checkpoint and updates it in place", async () => {
      const a = await t.createAgent();
      const first = stepRecord("step-1", a);
      await t.store.commit(step(a, { run: run("run-1", a), steps: [first] }));
      await t.store.commit(step(a, { steps: [stepRecord("step-2", a)] }));
      expect(await t.store.getStep("step-1")).toEqual(first);
      const done: StepRecord = {
        ...first,
        stop_reason: "end_turn",
        tool_calls: [{ ...firstCall(first), outcome: "success", duration_ms: 12 }],
      };
      await t.store.commit(step(a, { steps: [done] }));
      expect(await t.store.getStep("step-1")).toEqual(done);
      // Rewriting a step keeps its place in lists.
      const listed = await t.store.listSteps({ projectId: "project-1", runId: "run-1" }, asc());
      expect(ids(listed)).toEqual(["step-1", "step-2"]);
      expect(await t.store.getStep("step-none")).toBeNull();
    });

    it("writes nothing of a step record when its commit fails", async () => {
      const a = await t.createAgent();
      await t.store.commit(step(a, { messages: [userMessage("m-1", "hi")] }));
      const again = step(a, { messages: [userMessage("m-1", "hi")], steps: [stepRecord("s", a)] });
      await expect(t.store.commit(again)).rejects.toBeInstanceOf(ConflictError);
      expect(await t.store.getStep("s")).toBeNull();
    });

    it("refuses an invalid step record or another agent's, with the field path", async () => {
      const a = await t.createAgent();
      const b = await t.createAgent();
      const bad = { ...stepRecord("s-1", a), prompt_tokens: -1 };
      const error = await t.store.commit(step(a, { steps: [bad] })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors.map((f) => f.path)).toContain(
        "steps.0.prompt_tokens",
      );
      const theirs = step(a, {
        messages: [userMessage("m-x", "x")],
        steps: [stepRecord("s-2", b)],
      });
      await expect(t.store.commit(theirs)).rejects.toBeInstanceOf(ValidationError);
      expect(await t.store.listMessages(a, asc())).toEqual([]);
      await t.store.commit(step(b, { steps: [stepRecord("s-3", b)] }));
      const taken = step(a, { messages: [userMessage("m-y", "y")], steps: [stepRecord("s-3", a)] });
      await expect(t.store.commit(taken)).rejects.toBeInstanceOf(ConflictError);
      expect(await t.store.listMessages(a, asc())).toEqual([]);
      expect((await t.store.getStep("s-3"))?.agent_id).toBe(b);
    });

    it("lists a project's steps by agent, run, model and time, paged by cursors", async () => {
      const a = await t.createAgent("agent-a", "project-1");
      const b = await t.createAgent("agent-b", "project-1");
      const other = await t.createAgent("agent-o", "project-2");
      await t.store.commit(step(a, { steps: [stepRecord("s-1", a, "run-1", "openai/gpt-4o", 1)] }));
      await t.store.commit(step(b, { steps: [stepRecord("s-2", b, "run-2", "sim/echo", 2)] }));
      await t.store.commit(step(a, { steps: [stepRecord("s-3", a, "run-3", "sim/echo", 3)] }));
      await t.store.commit(step(other, { steps: [stepRecord("s-4", other, "run-4")] }));
      const list = async (filter: Record<string, unknown>, page = asc()) =>
        ids(await t.store.listSteps({ projectId: "project-1", ...filter }, page));
      expect(await list({})).toEqual(["s-1", "s-2", "s-3"]);
      expect(await list({}, desc(2))).toEqual(["s-3", "s-2"]);
      expect(await list({}, asc(5, { after: "s-1" }))).toEqual(["s-2", "s-3"]);
      expect(await list({ agentId: a })).toEqual(["s-1", "s-3"]);
      expect(await list({ runId: "run-2" })).toEqual(["s-2"]);
      expect(await list({ model: "sim/echo" })).toEqual(["s-2", "s-3"]);
      expect(await list({ model: "gpt-4o" })).toEqual(["s-1"]);
      expect(await list({ fromMs: 2, toMs: 3 })).toEqual(["s-2"]);
      // Another project's step is neither listed nor a cursor here.
      expect(await list({}, asc(5, { after: "s-4" }))).toEqual([]);
      expect(await list({ agentId: other })).toEqual([]);
    });

    it("applies updates to stored steps in the commit, and ignores steps it has no record of", async () => {
      const a = await t.createAgent();
      const b = await t.createAgent();
      await t.store.commit(step(a, { steps: [stepRecord("s-1", a)] }));
      await t.store.commit(step(b, { steps: [stepRecord("s-b", b)] }));
      const done = { tool_call_id: "call-1", outcome: "error" as const, duration_ms: 7 };
      await t.store.commit(
        step(a, {
          messages: [userMessage("m-1", "after the tool")],
          stepUpdates: [
            { id: "s-1", tool_calls: [done], stop_reason: "end_turn" },
            { id: "s-none", tool_calls: [done], stop_reason: null },
            { id: "s-b", tool_calls: [done], stop_reason: "end_turn" },
          ],
        }),
      );
      const updated = await t.store.getStep("s-1");
      expect(updated?.tool_calls).toEqual([{ ...done, name: "web_search" }]);
      expect(updated?.stop_reason).toBe("end_turn");
      expect(await t.store.getStep("s-none")).toBeNull();
      expect(await t.store.getStep("s-b")).toEqual(stepRecord("s-b", b));
      const bad = step(a, {
        stepUpdates: [{ id: "s-1", tool_calls: [], stop_reason: "nope" as never }],
      });
      await expect(t.store.commit(bad)).rejects.toBeInstanceOf(ValidationError);
    });

    it("deletes an agent's steps with the agent", async () => {
      const a = await t.createAgent();
      await t.store.commit(step(a, { steps: [stepRecord("s-1", a)] }));
      await t.store.deleteAgent(a);
      expect(await t.store.getStep("s-1")).toBeNull();
      expect(await t.store.listSteps({ projectId: "project-1" }, asc())).toEqual([]);
    });

    const reopen = options.reopen;
    if (reopen) {
      it("keeps step records across close and reopen", async () => {
        const a = await t.createAgent();
        await t.store.commit(step(a, { steps: [stepRecord("s-1", a), stepRecord("s-2", a)] }));
        t.store = await reopen(t.store);
        expect(await t.store.getStep("s-2")).toEqual(stepRecord("s-2", a));
        expect(ids(await t.store.listSteps({ projectId: "project-1" }, asc()))).toEqual([
          "s-1",
          "s-2",
        ]);
      });
    }
  });
}

function firstCall(record: StepRecord) {
  const call = record.tool_calls[0];
  if (!call) throw new Error("the fixture has a tool call");
  return call;
}
