import { z } from "zod";

/** A core memory block: always in the agent's context, edited by memory tools within its limit. */
export const CoreBlock = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string(),
  value: z.string(),
  /** The most characters `value` may hold. */
  limit: z.int().min(1),
  read_only: z.boolean(),
});
export type CoreBlock = z.infer<typeof CoreBlock>;

/** An archival passage: long-term memory that is searched, not always in view. */
export const Passage = z.object({
  id: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  created_at_ms: z.number(),
});
export type Passage = z.infer<typeof Passage>;

/** A stored message found by conversation search. */
export interface MessageHit {
  id: string;
  role: "user" | "assistant" | "tool";
  text: string;
  created_at_ms: number;
}

/** What one step changed in memory, committed with the step's messages and checkpoint. */
export interface MemoryChanges {
  blocks: CoreBlock[];
  passages: Passage[];
}
