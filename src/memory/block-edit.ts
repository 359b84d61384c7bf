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
  const limit = edit.limit ?? block.limit;
  const value = edit.value ?? block.value;
  if (edit.value != null) {
    const check = checkBlockValue({ ...block, limit, read_only: false }, value);
    if (!check.ok)
      throw new ValidationError("invalid block", [{ path: "value", message: check.error }]);
  } else if (value.length > limit) {
    const message = `block '${edit.label}' holds ${value.length} characters; a limit of ${limit} is below that`;
    throw new ValidationError("invalid block", [{ path: "limit", message }]);
  }
  return {
    ...block,
    value,
    limit,
    description: edit.description === undefined ? block.description : (edit.description ?? ""),
    read_only: edit.read_only ?? block.read_only,
  };
}
