import type pg from "pg";
import type { AgentListFilter } from "../store.js";
import { seqOf } from "./rows.js";

/** How many candidates a search by part of the name reads at a time. */
const NAME_SCAN_BATCH = 500;

/**
 * The condition an agent list adds for a filter's exact parts, which need no locale: `$5` the
 * name, `$6` the wanted tags as a JSON array, `$7` whether the agent must carry all of them.
 */
const EXACT_PARTS = `($5::text IS NULL OR body->>'name' = $5)
  AND ($6::jsonb IS NULL OR CASE WHEN $7 THEN body->'tags' @> $6::jsonb
    ELSE body->'tags' ?| ARRAY(SELECT jsonb_array_elements_text($6::jsonb)) END)`;

const listed = (columns: string, order: "ASC" | "DESC") =>
  `SELECT ${columns} FROM agents WHERE project_id = $1 AND seq > $2 AND seq < $3
   AND ${EXACT_PARTS} ORDER BY seq ${order} LIMIT $4`;

const SQL = {
  asc: listed("body", "ASC"),
  desc: listed("body", "DESC"),
  namesAsc: listed("seq, body->>'name' AS name", "ASC"),
  namesDesc: listed("seq, body->>'name' AS name", "DESC"),
  bodiesAsc: "SELECT body FROM agents WHERE seq = ANY($1::bigint[]) ORDER BY seq ASC",
  bodiesDesc: "SELECT body FROM agents WHERE seq = ANY($1::bigint[]) ORDER BY seq DESC",
};

/**
 * A filtered page of a project's agents between two `seq` bounds, as rows with `body`. The
 * exact parts run in SQL; a part of the name is matched here, in any case as JavaScript folds
 * it (PostgreSQL's `lower` follows the server's locale), over the names of batches of
 * candidates, so no more than a batch is ever held and bodies are read for the page only.
 */
export async function filteredAgents(
  pool: pg.Pool,
  projectId: string,
  bounds: { lower: number; upper: number; limit: number },
  asc: boolean,
  filter: AgentListFilter,
): Promise<Record<string, unknown>[]> {
  const tags = [...new Set(filter.tags ?? [])];
  const exact = [
    filter.name ?? null,
    tags.length > 0 ? JSON.stringify(tags) : null,
    filter.matchAllTags ?? false,
  ];
  const part = filter.nameContains?.toLowerCase();
  let { lower, upper } = bounds;
  if (!part) {
    const params = [projectId, lower, upper, bounds.limit, ...exact];
    return (await pool.query(asc ? SQL.asc : SQL.desc, params)).rows;
  }
  const found: number[] = [];
  for (;;) {
    const params = [projectId, lower, upper, NAME_SCAN_BATCH, ...exact];
    const { rows } = await pool.query(asc ? SQL.namesAsc : SQL.namesDesc, params);
    for (const row of rows) {
      if (String(row.name).toLowerCase().includes(part)) found.push(seqOf(row) as number);
      if (found.length >= bounds.limit) break;
    }
    if (found.length >= bounds.limit || rows.length < NAME_SCAN_BATCH) break;
    const last = seqOf(rows.at(-1)) as number;
    if (asc) lower = last;
    else upper = last;
  }
  if (found.length === 0) return [];
  return (await pool.query(asc ? SQL.bodiesAsc : SQL.bodiesDesc, [found])).rows;
}
