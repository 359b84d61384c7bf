import { describe, expect, it } from "vitest";
import { ChainProgress, renderProgress, summary } from "./chain-progress.js";

const agent = (name: string, status: string, extra: Record<string, unknown> = {}) => ({
  name,
  role: "agent",
  agent_type: "digger",
  status,
  output: null,
  output_source: null,
  error: null,
  ...extra,
});

const snapshot = {
  message_type: "chain_run",
  id: "chainrun-1",
  chain: "investigate",
  status: "running",
  stages: [
    {
      name: "research",
      status: "running",
      output: null,
      error: null,
      agents: [agent("logs", "running"), agent("metrics", "pending")],
      synthesis: null,
    },
  ],
  pending_approvals: [],
  score: null,
  error: null,
  usage: { prompt_tokens: 10, completion_tokens: 5, step_count: 2 },
  created_at_ms: 1_000,
  completed_at_ms: null,
};

describe("following a chain run", () => {
  it("turns the stream into a line per change and a live view with each agent's latest words", () => {
    const progress = new ChainProgress();
    expect(progress.apply(snapshot)).toEqual([
      "run chainrun-1 of chain 'investigate': running",
      "research: running",
    ]);
    const tags = { stage: "research", agent_name: "logs" };
    progress.apply({ message_type: "assistant_message", id: "m1", content: "the disk ", ...tags });
    progress.apply({ message_type: "assistant_message", id: "m1", content: "is full", ...tags });
    expect(renderProgress(progress, 0, 80)).toEqual([
      "investigate · chainrun-1 · running",
      "⠋ research",
      "    ⠋ logs [digger] the disk is full",
      "    · metrics [digger]",
    ]);
    const done = agent("logs", "completed", { output: "the disk is full" });
    expect(progress.apply({ message_type: "chain_agent", stage: "research", ...done })).toEqual([
      "research/logs [digger]: completed: the disk is full",
    ]);
    const failed = agent("metrics", "failed", {
      error: "the agent's run stopped with 'llm_api_error'",
    });
    expect(progress.apply({ message_type: "chain_agent", stage: "research", ...failed })).toEqual([
      "research/metrics [digger]: failed: the agent's run stopped with 'llm_api_error'",
    ]);
    expect(renderProgress(progress, 1, 40)[3]).toBe("    ✗ metrics [digger] the agent's run …");
    const approval = {
      stage: "research",
      agent_name: "logs",
      tool_call: { name: "shell", arguments: '{"command":"df"}', tool_call_id: "call-9" },
    };
    expect(
      progress.apply({
        message_type: "chain_run_status",
        status: "awaiting_approval",
        score: null,
        error: null,
        pending_approvals: [approval],
      }),
    ).toEqual([
      "run awaiting_approval",
      'approval needed: research/logs wants shell({"command":"df"})',
      "  answer: holdfast chains approve chainrun-1 call-9 [--deny]",
    ]);
    expect(progress.finished).toBe(false);
  });

  it("sums a finished run up: status, score, cost, and the last answer (not the grade)", () => {
    const run = {
      ...snapshot,
      status: "completed",
      completed_at_ms: 3_500,
      score: { value: 80, min_score: 60, passed: true },
      stages: [
        { ...snapshot.stages[0], status: "completed", output: "merged findings" },
        {
          name: "grade",
          status: "completed",
          output: "score: 80",
          error: null,
          agents: [{ ...agent("scoring", "completed"), role: "scoring" }],
          synthesis: null,
        },
      ],
    };
    const progress = new ChainProgress();
    progress.apply(run);
    expect(progress.finished).toBe(true);
    expect(summary(progress.run ?? (undefined as never))).toEqual([
      "run completed · score 80 (minimum 60) · 2 model calls, 15 tokens, 2.5 s",
      "",
      "merged findings",
    ]);
  });
});
