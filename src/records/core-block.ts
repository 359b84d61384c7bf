import { z } from "zod";
import { FreeFormObject } from "./free-form-json.js";

/**
 * The core memory block, one concept with one set of field schemas: what is stored
 * (`CoreBlock`), what a type's config starts an agent with (`CoreBlockTemplate`), what Letta's
 * clients send (`CreateBlockBody`, `BlockPatchBody`) and what the API answers (`BlockView`) are
 * all built here from the same fields, so a limit or a label rule changes in one place.
 */

/** A block's label: how the prompt and the memory tools name it. */
export const BlockLabel = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, "a block label is 1-64 lowercase letters, digits or _");
/** The most characters a block's limit may allow. */
export const MAX_BLOCK_LIMIT = 1_000_000;
export const BlockLimit = z.int().min(1).max(MAX_BLOCK_LIMIT);
export const BlockValue = z.string().max(MAX_BLOCK_LIMIT);
export const BlockDescription = z.string().max(10_000);
export const BlockTags = z.array(z.string().min(1).max(200)).max(100);

/**
 * A core memory block as stored: always in the context of every agent it is attached to,
 * edited by their memory tools within its limit. A block belongs to a project; it may be
 * attached to no agent (a standalone block), one, or several (a shared block).
 */
export const CoreBlock = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string(),
  value: z.string(),
  /** The most characters `value` may hold. */
  limit: z.int().min(1),
  read_only: z.boolean(),
  /** Letta's block tags and metadata; absent on blocks that never had any. */
  tags: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type CoreBlock = z.infer<typeof CoreBlock>;

/** A core memory block every agent of a type starts with (config files: strict, defaults). */
export const CoreBlockTemplate = z
  .strictObject({
    label: BlockLabel,
    description: z.string().default(""),
    value: z.string().default(""),
    /** The most characters the block may hold; edits past it are refused. */
    limit: BlockLimit,
    read_only: z.boolean().default(false),
  })
  .refine((block) => block.value.length <= block.limit, {
    message: "the initial value is longer than the block's limit",
    path: ["value"],
  });
export type CoreBlockTemplate = z.infer<typeof CoreBlockTemplate>;

/**
 * A block as Letta's clients create it (`POST /v1/blocks`, `memory_blocks` of a new agent).
 * Letta's template fields (`is_template`, `template_name`, …) are accepted and not kept:
 * Holdfast has no block templates.
 */
export const CreateBlockBody = z.object({
  label: BlockLabel,
  value: BlockValue,
  limit: BlockLimit.optional(),
  description: BlockDescription.nullish(),
  read_only: z.boolean().optional(),
  tags: BlockTags.nullish(),
  metadata: FreeFormObject.nullish(),
});
export type CreateBlockBody = z.infer<typeof CreateBlockBody>;

/** A change to a block (`PATCH /v1/blocks/{id}`, `PATCH …/core-memory/blocks/{label}`); null: unchanged. */
export const BlockPatchBody = z.object({
  label: BlockLabel.nullish(),
  value: BlockValue.nullish(),
  limit: BlockLimit.nullish(),
  description: BlockDescription.nullish(),
  read_only: z.boolean().nullish(),
  tags: BlockTags.nullish(),
  metadata: FreeFormObject.nullish(),
});
export type BlockPatchBody = z.infer<typeof BlockPatchBody>;

/** A block as Letta's API answers with it (`BlockResponse`). */
export const BlockView = z.looseObject({
  id: z.string(),
  label: z.string(),
  value: z.string(),
  limit: z.number(),
  description: z.string(),
  read_only: z.boolean(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  is_template: z.boolean(),
});
export type BlockView = z.infer<typeof BlockView>;

/** The API's view of a stored block. */
export function blockView(block: CoreBlock): BlockView {
  return {
    id: block.id,
    label: block.label,
    value: block.value,
    limit: block.limit,
    description: block.description,
    read_only: block.read_only,
    tags: block.tags ?? [],
    metadata: block.metadata ?? {},
    is_template: false,
  };
}

/** Letta's default limit of a block created without one. */
export const DEFAULT_BLOCK_LIMIT = 5000;

/** A block a client created, with its id; the limit grows to fit a longer value (as Letta's does). */
export function newBlock(id: string, body: CreateBlockBody): CoreBlock {
  return {
    id,
    label: body.label,
    description: body.description ?? "",
    value: body.value,
    limit: body.limit ?? Math.max(DEFAULT_BLOCK_LIMIT, body.value.length),
    read_only: body.read_only ?? false,
    ...(body.tags ? { tags: [...new Set(body.tags)] } : {}),
    ...(body.metadata ? { metadata: body.metadata } : {}),
  };
}
