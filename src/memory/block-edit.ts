import { ConflictError, NotFoundError, ValidationError } from "../core/errors.js";
import type { CoreBlock } from "../records/memory-records.js";
import { checkBlockValue } from "./core-block.js";

/**
 * A change to an agent's core blocks from outside its turns (the API's block routes), as data:
 * an engine applies it between turns, wherever the agent lives.
 */
export type BlockEdit =
  | {
      kind: "update";
      label: string;
      value?: string | null | undefined;
      limit?: number | null | undefined;
      description?: string | null | undefined;
      read_only?: boolean | null | undefined;
    }
  | { kind: "attach"; block: CoreBlock }
  | { kind: "detach"; blockId: string };

/** What an edit writes: a block to put, or a label to delete. */
export type BlockWrite = { put: CoreBlock } | { delete: string };

/**
 * Applies an edit to the agent's blocks, or throws why it cannot be made. Read-only blocks may
 * be edited here: `read_only` stops the agent's own memory tools, not its owner, as in Letta.
 */
export function applyBlockEdit(blocks: readonly CoreBlock[], edit: BlockEdit): BlockWrite {
  switch (edit.kind) {
    case "attach": {
      if (blocks.some((block) => block.label === edit.block.label)) {
        throw new ConflictError(
          `the agent already has a block labelled '${edit.block.label}'; detach it first`,
        );
      }
      return { put: edit.block };
    }
    case "detach": {
      const block = blocks.find((candidate) => candidate.id === edit.blockId);
      if (!block) throw new NotFoundError("block", edit.blockId);
      return { delete: block.label };
    }
    case "update":
      return { put: updatedBlock(blocks, edit) };
  }
}

function updatedBlock(
  blocks: readonly CoreBlock[],
  edit: Extract<BlockEdit, { kind: "update" }>,
): CoreBlock {
  const block = blocks.find((candidate) => candidate.label === edit.label);
  if (!block)
    throw new NotFoundError(
      "block",
      edit.label,
      blocks.map((b) => b.label),
    );
  return patchBlock(block, edit);
}

/** The fields of a block a patch may change; null or absent: unchanged. */
export interface BlockPatch {
  label?: string | null | undefined;
  value?: string | null | undefined;
  limit?: number | null | undefined;
  description?: string | null | undefined;
  read_only?: boolean | null | undefined;
  tags?: readonly string[] | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
}

/**
 * A block with a patch applied, or a `ValidationError` at the field that breaks its limit.
 * Read-only blocks may be patched: `read_only` stops the agents' memory tools, not the owner.
 */
export function patchBlock(block: CoreBlock, patch: BlockPatch): CoreBlock {
  const limit = patch.limit ?? block.limit;
  const value = patch.value ?? block.value;
  if (patch.value != null) {
    const check = checkBlockValue({ ...block, limit, read_only: false }, value);
    if (!check.ok)
      throw new ValidationError("invalid block", [{ path: "value", message: check.error }]);
  } else if (value.length > limit) {
    const message = `block '${block.label}' holds ${value.length} characters; a limit of ${limit} is below that`;
    throw new ValidationError("invalid block", [{ path: "limit", message }]);
  }
  return {
    ...block,
    label: patch.label ?? block.label,
    value,
    limit,
    description: patch.description === undefined ? block.description : (patch.description ?? ""),
    read_only: patch.read_only ?? block.read_only,
    ...(patch.tags ? { tags: [...new Set(patch.tags)] } : {}),
    ...(patch.metadata ? { metadata: patch.metadata } : {}),
  };
}
