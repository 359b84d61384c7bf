import type { AgentListFilter } from "./store.js";

/** Whether the filter leaves any agent out (an empty one pages the plain list). */
export function filtersAgents(filter: AgentListFilter | undefined): filter is AgentListFilter {
  return (
    filter !== undefined &&
    (filter.name !== undefined || Boolean(filter.nameContains) || (filter.tags?.length ?? 0) > 0)
  );
}

/** The filter on one agent, as every store must judge it (the in-memory store runs this). */
export function passesAgentFilter(
  agent: { name: string; tags: readonly string[] },
  filter: AgentListFilter,
): boolean {
  if (filter.name !== undefined && agent.name !== filter.name) return false;
  const part = filter.nameContains?.toLowerCase();
  if (part && !agent.name.toLowerCase().includes(part)) return false;
  const tags = filter.tags ?? [];
  if (tags.length === 0) return true;
  return filter.matchAllTags
    ? tags.every((tag) => agent.tags.includes(tag))
    : tags.some((tag) => agent.tags.includes(tag));
}
