import { describe, expect, it } from "vitest";
import { beginTurnState, newSessionState } from "../records/session-state.js";
import type { EffectiveCapabilities } from "../types/capabilities-schema.js";
import { nextSessionState } from "./session-end.js";

const caps = (depth: string) => ({ memory: { depth } }) as unknown as EffectiveCapabilities;
const summary = (text: string) => ({
  text,
  through_id: null,
  folded: 1,
  last_error: null,
  failed_in_run: null,
});

describe("the next session's checkpoint and conversations (decision 026)", () => {
  const inA = {
    ...beginTurnState(
      { ...newSessionState("s-1"), summary: summary("default") },
      "run-1",
      [],
      "conv-a",
    ),
    phase: "idle" as const,
    summary: summary("a"),
  };

  it("keeps every conversation's summary for a persistent agent", () => {
    const next = nextSessionState(inA, "s-2", "m-9", caps("persistent"));
    expect(next.conversation_id).toBe("conv-a");
    expect(next.summary).toEqual(summary("a"));
    expect(next.summaries).toEqual({ default: summary("default") });
  });

  it("ends them all with the session for a session agent", () => {
    const next = nextSessionState(inA, "s-2", "m-9", caps("session"));
    expect(next).toMatchObject({ conversation_id: null, summary: null, summaries: {} });
  });
});
