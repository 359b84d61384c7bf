import { z } from "zod";
import { CoreBlock, Passage } from "./memory-records.js";

/**
 * One change of an agent's memory, kept so that its memory as of a past message can be rebuilt
 * (forking an agent at that point). Stores append one for every block written or deleted and
 * every passage added or deleted, in the transaction that makes the change.
 *
 * `position` places the change among the agent's messages: twice the number of messages the
 * agent had once it was made, plus one when it was made between commits (through the API). So
 * a change committed with message N (a memory tool's result) is at 2N, and an edit made after
 * message N but before N+1 is at 2N+1; the memory as of message N is every change at or
 * below 2N. Creation is at 0.
 */
export const MemoryChange = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("block"), block: CoreBlock }),
  z.object({ kind: z.literal("block_deleted"), label: z.string() }),
  z.object({ kind: z.literal("passage"), id: z.string() }),
  /** The whole passage, so that the memory before its deletion can still be rebuilt. */
  z.object({ kind: z.literal("passage_deleted"), passage: Passage }),
  /**
   * Memory history begins here: the agent existed before its store kept history (the blocks
   * written with this mark are its memory then; its passages then have no `passage` entry).
   */
  z.object({ kind: z.literal("baseline") }),
]);
export type MemoryChange = z.infer<typeof MemoryChange>;

export const MemoryVersion = z.object({
  position: z.int().min(0),
  change: MemoryChange,
});
export type MemoryVersion = z.infer<typeof MemoryVersion>;

/**
 * A new agent's memory changes. Created with history (an imported agent), what came before
 * its blocks is unknown: its memory history begins, with a baseline, after that history.
 */
export function createdWith(
  blocks: readonly CoreBlock[],
  messages: number,
): { position: number; changes: MemoryChange[] } {
  const written = blocks.map((block) => ({ kind: "block" as const, block }));
  if (messages === 0) return { position: 0, changes: written };
  return { position: committedAt(messages), changes: [{ kind: "baseline" }, ...written] };
}

/** The position of a change made by a commit that leaves the agent with `messages` messages. */
export const committedAt = (messages: number): number => 2 * messages;
/** The position of a change made between commits, when the agent has `messages` messages. */
export const editedAt = (messages: number): number => 2 * messages + 1;
