import { z } from "zod";
import { embeddingHandleProblem } from "../llm/embedding-model.js";
import type { AgentType } from "./agent-type.js";
import type { AgentOverrides } from "./overrides.js";

/**
 * An embedding model handle (`openai/text-embedding-3-small`, `ollama/nomic-embed-text`,
 * `google/gemini-embedding-001`, `openai-compatible/NAME`): checked where it is written, so a
 * config file or request naming a provider without embeddings fails at its field.
 */
export const EmbeddingHandle = z.string().superRefine((handle, ctx) => {
  const problem = embeddingHandleProblem(handle);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
export type EmbeddingHandle = z.infer<typeof EmbeddingHandle>;

/**
 * The embedding model an agent's memory is searched with: its own (Letta's `embedding`), else
 * its type's `memory.embedding` (which a config file's `defaults` fills), else none, and then
 * search is full-text only. An agent may set `null` to turn vectors off for itself.
 */
export function embeddingHandleOf(type: AgentType, overrides: AgentOverrides): string | null {
  const own = overrides.memory?.embedding;
  return own === undefined ? (type.memory.embedding ?? null) : own;
}
