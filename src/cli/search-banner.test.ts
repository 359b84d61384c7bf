import { describe, expect, it } from "vitest";
import { builtinConfig, checkConfig } from "../config/config-file.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import { describeSearch } from "./search-banner.js";

const withEmbedding = (embedding: string) => {
  const checked = checkConfig({ defaults: { memory: { embedding } } });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
};

describe("the start-up line about search", () => {
  const { vectors } = createInMemoryStore();

  it("says search is full-text only when no embedding model is configured", () => {
    expect(describeSearch(builtinConfig(), vectors, {})).toMatch(
      /^full-text \(BM25\) only: no embedding model configured/,
    );
  });

  it("names the embedding models, and one that cannot be called yet", () => {
    const config = withEmbedding("openai/text-embedding-3-small");
    expect(describeSearch(config, vectors, { OPENAI_API_KEY: "k" })).toBe(
      "hybrid BM25 + vectors (exact cosine in memory); embeddings by openai/text-embedding-3-small",
    );
    expect(describeSearch(config, vectors, {})).toContain("(NOT READY, full-text until fixed:");
  });
});
