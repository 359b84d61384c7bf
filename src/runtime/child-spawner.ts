import type { ChildSpawner, SpawnRequest } from "../agent/children.js";
import { ConflictError } from "../core/errors.js";
import { derivedId } from "../core/ids.js";
import { childOverrides } from "../types/child-policy.js";
import type { Activation, ActivationSources } from "./activation.js";
import { newAgent } from "./new-agent.js";

/** The idempotency key of a child's task: its parent's run and spawn call. */
export function spawnKey(runId: string, toolCallId: string): string {
  return `spawn:${runId}:${toolCallId}`;
}

/** How deep below a user-created agent this one is (0 for one a user created). */
export function spawnDepth(metadata: Record<string, unknown>): number {
  const depth = metadata.spawn_depth;
  return typeof depth === "number" ? depth : 0;
}

/**
 * Makes a parent's sub-agents as real agents: the id is derived from the parent's run and the
 * spawn call (a retried step finds the child it made), the child is of its own type narrowed by
 * the parent's policy, and the depth limit holds along the whole chain (each child may spawn one
 * level less than its parent).
 */
export function childSpawner(parent: Activation, sources: ActivationSources): ChildSpawner {
  return {
    async spawn(request: SpawnRequest) {
      const caps = parent.agent.config.capabilities;
      const depth = spawnDepth(parent.record.metadata);
      if (caps.limits.max_spawn_depth < 1) {
        return {
          ok: false,
          error: `cannot spawn: the spawn depth limit is reached (this agent is ${depth} level${depth === 1 ? "" : "s"} below the agent the user talks to and may not spawn further)`,
        };
      }
      const { registry } = sources.config;
      const type = registry.get(request.agentType);
      if (!type) {
        return {
          ok: false,
          error: `no agent type '${request.agentType}'; known: ${registry.names().join(", ")}`,
        };
      }
      const id = derivedId("agent", request.runId, request.toolCallId);
      if (await sources.store.getAgent(id)) return { ok: true, childId: id };
      const created = newAgent(
        {
          id,
          name: `${parent.record.name}-${type.name}-${id.slice(6, 14)}`,
          projectId: parent.record.project_id,
          type,
          overrides: childOverrides({
            type: parent.type,
            overrides: parent.overrides,
            capabilities: caps,
          }),
          toolRules: parent.record.tool_rules.filter((rule) => rule.type === "requires_approval"),
          tags: ["spawned"],
          metadata: {
            parent_agent_id: parent.record.id,
            parent_run_id: request.runId,
            spawn_call_id: request.toolCallId,
            spawn_depth: depth + 1,
          },
          parentId: parent.record.id,
        },
        sources.ids,
        sources.clock.now(),
      );
      try {
        await sources.store.createAgent(created);
      } catch (error) {
        // Made by an earlier attempt of this step that did not get to commit.
        if (!(error instanceof ConflictError)) throw error;
      }
      return { ok: true, childId: id };
    },
  };
}
