import { type FieldError, ValidationError } from "../core/errors.js";
import type { CoreBlock } from "../records/core-block.js";
import type { ServiceContext } from "./agent-access.js";

/**
 * The blocks a request's `block_ids` names, checked before anything is written: each must be a
 * block of the project, and no two of the agent's blocks (`others` and these) may share a
 * label. Problems are reported at `block_ids.N`; repeated ids count once.
 */
export async function checkBlockIds(
  ctx: ServiceContext,
  projectId: string,
  blockIds: readonly string[],
  others: readonly CoreBlock[],
): Promise<CoreBlock[]> {
  const labels = new Set(others.map((block) => block.label));
  const errors: FieldError[] = [];
  const found: CoreBlock[] = [];
  for (const id of new Set(blockIds)) {
    const block = await ctx.store.blocks.get(projectId, id);
    const path = `block_ids.${blockIds.indexOf(id)}`;
    if (!block) {
      errors.push({ path, message: `no block '${id}' in this project` });
      continue;
    }
    if (labels.has(block.label)) {
      errors.push({ path, message: `another block of the agent is labelled '${block.label}'` });
    }
    labels.add(block.label);
    found.push(block);
  }
  if (errors.length > 0) throw new ValidationError("invalid agent", errors);
  return found;
}

/**
 * Letta's `block_ids` on `PATCH /v1/agents/{id}`: the agent's blocks become exactly these
 * (detached ones stay for the agents sharing them). Checked whole first; then the blocks not
 * named are detached and the new ones attached, in the order named.
 */
export async function replaceBlocks(
  ctx: ServiceContext,
  projectId: string,
  agentId: string,
  blockIds: readonly string[],
): Promise<void> {
  const wanted = await checkBlockIds(ctx, projectId, blockIds, []);
  const current = await ctx.store.loadBlocks(agentId);
  const keep = new Set(wanted.map((block) => block.id));
  for (const block of current) {
    if (!keep.has(block.id)) await ctx.store.detachBlock(agentId, block.label);
  }
  const had = new Set(current.map((block) => block.id));
  for (const block of wanted) {
    if (!had.has(block.id)) await ctx.store.blocks.attach(agentId, block.id);
  }
}
