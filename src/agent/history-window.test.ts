import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../records/messages.js";
import { HistoryWindow } from "./history-window.js";

const base = { date: "2026-01-01T00:00:00.000Z", run_id: "run-1", step_id: null, otid: null };
const user = (i: number): AgentMessage => ({
  ...base,
  id: `m${i}`,
  message_type: "user_message",
  content: `q${i}`,
});
const toolReturn = (i: number): AgentMessage => ({
  ...base,
  id: `m${i}`,
  message_type: "tool_return_message",
  name: "lookup",
  tool_call_id: `c${i}`,
  tool_return: "v",
  status: "success",
});

const ids = (messages: readonly AgentMessage[]) => messages.map((m) => m.id);

describe("the history window a model call sees", () => {
  it("keeps the default conversation's messages only (decision 026)", () => {
    const window = new HistoryWindow([], 10);
    window.append([user(1), { ...user(2), conversation_id: "conv-a" }, user(3)]);
    expect(ids(window.recent(10))).toEqual(["m1", "m3"]);
  });

  it("holds the previous call's window as its prefix, except when it moves a page (a quarter of the limit)", () => {
    const window = new HistoryWindow([], 40);
    let previous: string[] = [];
    let moves = 0;
    for (let i = 0; i < 400; i += 1) {
      window.append([user(i)]);
      const now = ids(window.promptWindow(40));
      expect(now.length).toBeLessThanOrEqual(40);
      expect(now.at(-1)).toBe(`m${i}`);
      if (now.slice(0, previous.length).join() !== previous.join()) {
        moves += 1;
        // A move drops one whole page from the front, never more.
        expect(now[0]).toBe(previous[10]);
      }
      previous = now;
    }
    // 400 messages past a limit of 40, in pages of 10: one move per page.
    expect(moves).toBe(36);
  });

  it("never opens with a tool return whose call it left out", () => {
    const window = new HistoryWindow([], 8);
    for (let i = 0; i < 60; i += 1) {
      window.append([i % 2 === 0 ? user(i) : toolReturn(i)]);
      expect(window.promptWindow(8)[0]?.message_type).not.toBe("tool_return_message");
    }
  });

  it("gives everything while the history is within the limit", () => {
    const window = new HistoryWindow([user(0), user(1)], 10);
    window.append([user(2)]);
    expect(ids(window.promptWindow(10))).toEqual(["m0", "m1", "m2"]);
    expect(window.promptWindow(0)).toEqual([]);
  });
});
