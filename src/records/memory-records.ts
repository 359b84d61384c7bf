import { z } from "zod";

import type { CoreBlock } from "./core-block.js";

export { CoreBlock } from "./core-block.js";

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
  /**
   * The value each written block (by id) had when the turn read it: a block changed meanwhile
   * (shared with another agent, or edited through the API) gets the edit rebased onto it
   * (`storage/block-merge.ts`). A block without a base is written as given.
   */
  bases?: Record<string, string>;
  passages: Passage[];
}
