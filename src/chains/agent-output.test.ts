import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../records/messages.js";
import { outputOf, parseScore } from "./agent-output.js";

const base = { date: "2025-01-01T00:00:00.000Z", run_id: "r", step_id: null, otid: null };
const reply = (id: string, content: string) =>
  ({ ...base, id, message_type: "assistant_message", content }) as AgentMessage;
const thought = (id: string, reasoning: string) =>
  ({ ...base, id, message_type: "reasoning_message", reasoning }) as AgentMessage;

describe("scores", () => {
  it.each([
    ["score: 87\nsolid", 87],
    ["Score = 42.5", 42.5],
    ['{"score": 12, "why": "thin"}', 12],
    ['verdict: {"score": "64"}', 64],
    ["SCORE:-3", -3],
  ])("reads %j as %d", (text, value) => {
    expect(parseScore(text)).toBe(value);
  });

  it.each([["looks fine"], ['{"score": ""}'], ['{"score": true}'], ["score: high"], [""]])(
    "finds no score in %j",
    (text) => {
      expect(parseScore(text)).toBeNull();
    },
  );

  it("never makes a score up from text without a number in it", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/\d/.test(s)),
        (text) => parseScore(text) === null,
      ),
    );
  });

  it("reads back any score it is given, in a line or in JSON", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.string(), (n, noise) => {
        const clean = noise.replace(/[{}\d]|score/gi, "");
        return parseScore(`${clean}\nscore: ${n}`) === n && parseScore(`{"score": ${n}}`) === n;
      }),
    );
  });
});

describe("an agent's output", () => {
  it("is its last reply; with no reply, its last reasoning, said so", () => {
    expect(outputOf([thought("1", "hmm"), reply("2", "first"), reply("3", "last")])).toEqual({
      text: "last",
      source: "text",
    });
    expect(outputOf([thought("1", "early"), thought("2", "late")])).toEqual({
      text: "late",
      source: "reasoning",
    });
    expect(outputOf([reply("1", "  "), thought("2", "only this")])).toEqual({
      text: "only this",
      source: "reasoning",
    });
    expect(outputOf([])).toBeNull();
  });
});
