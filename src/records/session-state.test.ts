import { describe, expect, it } from "vitest";
import {
  beginTurnState,
  enterConversation,
  type HistorySummary,
  newSessionState,
  SessionState,
  summaryOf,
} from "./session-state.js";

const summary = (text: string): HistorySummary => ({
  text,
  through_id: `m-${text}`,
  folded: 2,
  last_error: null,
  failed_in_run: null,
});

describe("a session's conversations (decision 026)", () => {
  it("swaps summaries when a turn enters another conversation, and back", () => {
    const start = { ...newSessionState("s-1"), summary: summary("default") };
    const inA = beginTurnState(start, "run-1", [], "conv-a");
    expect(inA.conversation_id).toBe("conv-a");
    expect(inA.summary).toBeNull();
    expect(summaryOf(inA, null)).toEqual(summary("default"));
    const folded = { ...inA, summary: summary("a") };
    const back = beginTurnState(folded, "run-2", [], null);
    expect(back.summary).toEqual(summary("default"));
    expect(summaryOf(back, "conv-a")).toEqual(summary("a"));
    expect(enterConversation(back, "conv-a").summary).toEqual(summary("a"));
  });

  it("keeps the conversation of the last run when a turn names none (a heartbeat)", () => {
    const inA = beginTurnState(newSessionState("s-1"), "run-1", [], "conv-a");
    expect(beginTurnState(inA, "run-2").conversation_id).toBe("conv-a");
  });

  it("reads a version 6 checkpoint as being in the default conversation", () => {
    const { conversation_id: _c, summaries: _s, ...old } = newSessionState("s-1");
    const parsed = SessionState.parse({ ...old, version: 6 });
    expect(parsed.conversation_id).toBeNull();
    expect(parsed.summaries).toEqual({});
  });
});
