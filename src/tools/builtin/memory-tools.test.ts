import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../memory/agent-memory.js";
import type { PassageSearch } from "../../storage/turn-store.js";
import type { ToolContext } from "../tool.js";
import { MEMORY_IMPLEMENTATIONS } from "./memory-tools.js";

const tool = MEMORY_IMPLEMENTATIONS.find((t) => t.declaration.name === "archival_memory_search");

/** Runs archival_memory_search and returns the search options the memory was asked with. */
async function searchWith(args: Record<string, unknown>) {
  const asked: PassageSearch[] = [];
  const memory = {
    searchPassages: async (_query: string, options: PassageSearch) => {
      asked.push(options);
      return [];
    },
  } as unknown as AgentMemory;
  const parsed = tool?.declaration.parameters.parse({ query: "tea", ...args });
  const result = await tool?.run(parsed as never, { memory } as ToolContext);
  return { asked: asked[0], result };
}

describe("archival_memory_search", () => {
  it("passes Letta's tag mode, date range and top_k to the search", async () => {
    const { asked } = await searchWith({
      tags: ["a", "b"],
      tag_match_mode: "any",
      start_datetime: "2026-01-31",
      end_datetime: "2026-02-01T12:00:00",
      top_k: 3,
    });
    expect(asked).toEqual({
      anyTags: ["a", "b"],
      fromMs: Date.parse("2026-01-31T00:00:00Z"),
      toMs: Date.parse("2026-02-01T12:00:00Z"),
      topK: 3,
    });
    expect((await searchWith({ tags: ["a"] })).asked).toEqual({ tags: ["a"], topK: 5 });
  });

  it("tells the model when a date is not ISO 8601, without searching", async () => {
    const { asked, result } = await searchWith({ start_datetime: "last tuesday" });
    expect(asked).toBeUndefined();
    expect(result).toEqual({
      status: "error",
      output: "start_datetime 'last tuesday' is not an ISO 8601 date or time",
    });
  });
});
