import type { CoreBlock } from "../records/memory-records.js";

export type { CoreBlock };

export type BlockEdit = { ok: true; value: string } | { ok: false; error: string };

/** Checks a new value against the block's limit and read-only flag. */
export function checkBlockValue(block: CoreBlock, value: string): BlockEdit {
  if (block.read_only) return { ok: false, error: `block '${block.label}' is read-only` };
  if (value.length > block.limit) {
    return {
      ok: false,
      error: `block '${block.label}' would hold ${value.length} characters, over its limit of ${block.limit}; shorten or replace existing text first`,
    };
  }
  return { ok: true, value };
}
