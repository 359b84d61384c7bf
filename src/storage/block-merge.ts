import { ConflictError } from "../core/errors.js";
import type { CoreBlock } from "../records/core-block.js";

/**
 * How a step's edit of a block meets the block as stored when the step commits. A turn reads
 * its blocks when it starts; another agent sharing a block (or the API) may change it before
 * the turn's edit commits. The edit is then rebased, never written over the other change:
 *
 * - stored value unchanged since the turn read it: the edit is written as made;
 * - the edit left the value as read: the stored value stays;
 * - otherwise the edit (one span of the value replaced, as every memory tool makes: an
 *   append, an insert, a replace) is applied to the stored value at the same place, found by
 *   the text around it; an edit at the end (an append) goes to the stored value's end;
 * - where that place is gone or ambiguous, or the result breaks the limit, the commit fails
 *   with a `ConflictError` and writes nothing: no update is lost silently.
 *
 * Fields other than the value (label, limit, description, read-only) are the stored ones: a
 * turn only ever changes values.
 */
export function mergeBlockWrite(
  stored: CoreBlock,
  edited: CoreBlock,
  base: string | undefined,
): CoreBlock {
  if (base === undefined || stored.value === base) return { ...stored, value: edited.value };
  if (edited.value === base) return stored;
  const value = rebase(base, edited.value, stored.value);
  if (value === null) {
    throw new ConflictError(
      `block '${stored.label}' (${stored.id}) was changed by another agent or the API while this turn edited it, and the two edits overlap; nothing of the step was written`,
    );
  }
  if (value.length > stored.limit) {
    throw new ConflictError(
      `block '${stored.label}' (${stored.id}) would hold ${value.length} characters with this edit and another made meanwhile, over its limit of ${stored.limit}`,
    );
  }
  return { ...stored, value };
}

/** How much text either side of an edit locates it in a value changed meanwhile. */
const CONTEXT = 32;

/** Applies the edit base → mine onto theirs, or null when it cannot be placed unambiguously. */
export function rebase(base: string, mine: string, theirs: string): string | null {
  let prefix = 0;
  const most = Math.min(base.length, mine.length);
  while (prefix < most && base[prefix] === mine[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < most - prefix &&
    base[base.length - 1 - suffix] === mine[mine.length - 1 - suffix]
  )
    suffix++;
  const removed = base.slice(prefix, base.length - suffix);
  const inserted = mine.slice(prefix, mine.length - suffix);
  if (removed === "" && suffix === 0) return theirs + inserted;
  if (removed === "" && prefix === 0) return inserted + theirs;
  const before = base.slice(Math.max(0, prefix - CONTEXT), prefix);
  const after = base.slice(base.length - suffix, base.length - suffix + CONTEXT);
  const anchor = before + removed + after;
  const at = theirs.indexOf(anchor);
  if (at < 0 || theirs.indexOf(anchor, at + 1) >= 0) return null;
  const start = at + before.length;
  return theirs.slice(0, start) + inserted + theirs.slice(start + removed.length);
}
