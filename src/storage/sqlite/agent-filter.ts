import type { DatabaseSync } from "node:sqlite";
import { AgentRecord } from "../../records/agent-record.js";
import { filtersAgents } from "../agent-list-filter.js";
import type { AgentListFilter, PageQuery } from "../store.js";
import { bodies, pageBounds, seqFrom } from "./rows.js";
import type { Statements } from "./statements.js";

/** JavaScript's `toLowerCase` in SQL: SQLite's own `lower` folds ASCII letters only. */
const LOWER_FUNCTION = "holdfast_lower";

/**
 * The condition an agent list adds for an {@link AgentListFilter}, on the record in `body`:
 * `?5` the exact name, `?6` a part of the name already lower-cased, `?7` the wanted tags as a
 * JSON array without repeats, `?8` how many of them the agent must carry. A null skips its part.
 */
export const AGENT_FILTER = `(?5 IS NULL OR json_extract(body, '$.name') = ?5)
  AND (?6 IS NULL OR instr(${LOWER_FUNCTION}(json_extract(body, '$.name')), ?6) > 0)
  AND (?7 IS NULL OR (SELECT count(DISTINCT tag.value) FROM json_each(body, '$.tags') AS tag
    WHERE tag.value IN (SELECT value FROM json_each(?7))) >= ?8)`;

/** Makes the filter's lower-casing callable on this connection (before statements use it). */
export function registerAgentFilter(db: DatabaseSync): void {
  db.function(LOWER_FUNCTION, { deterministic: true }, (value) =>
    typeof value === "string" ? value.toLowerCase() : null,
  );
}

/** A page of a project's agents, the filter applied in SQL before the page is cut. */
export function listAgents(
  sql: Statements,
  projectId: string,
  page: PageQuery,
  filter?: AgentListFilter,
): AgentRecord[] {
  const bounds = pageBounds(page, (id) => seqFrom(sql.agentSeq, id, projectId));
  if (!bounds) return [];
  const asc = page.order === "asc";
  const { lower, upper, limit } = bounds;
  const rows = filtersAgents(filter)
    ? (asc ? sql.filteredAgentsAsc : sql.filteredAgentsDesc).all(
        projectId,
        lower,
        upper,
        limit,
        ...agentFilterParams(filter),
      )
    : (asc ? sql.agentsAsc : sql.agentsDesc).all(projectId, lower, upper, limit);
  return bodies(rows, AgentRecord, "agent");
}

/** The filter's parameters, `?5` to `?8`. */
function agentFilterParams(filter: AgentListFilter) {
  const tags = [...new Set(filter.tags ?? [])];
  const name = filter.name ?? null;
  const nameContains = filter.nameContains ? filter.nameContains.toLowerCase() : null;
  if (tags.length === 0) return [name, nameContains, null, 0] as const;
  return [name, nameContains, JSON.stringify(tags), filter.matchAllTags ? tags.length : 1] as const;
}
