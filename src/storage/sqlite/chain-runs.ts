import { ChainRunRecord } from "../../records/chain-run.js";
import type { ChainRunFilter, PageQuery } from "../store.js";
import { bodies, body, pageBounds, seqFrom } from "./rows.js";
import type { Statements } from "./statements.js";

/** Chain runs in SQLite: one row each, the record whole in `body`. */

/** Writes a checked run (inside a transaction): inserted, or replaced keeping its place. */
export function writeChainRun(sql: Statements, run: ChainRunRecord): void {
  sql.putChainRun.run(run.id, run.project_id, run.chain, run.status, JSON.stringify(run));
}

export function readChainRun(sql: Statements, id: string): ChainRunRecord | null {
  return body(sql.getChainRun.get(id), ChainRunRecord, "chain run");
}

export function listChainRuns(
  sql: Statements,
  filter: ChainRunFilter,
  page: PageQuery,
): ChainRunRecord[] {
  const chain = filter.chain ?? null;
  const bounds = pageBounds(page, (id) => seqFrom(sql.chainRunSeq, id, filter.projectId, chain));
  if (!bounds) return [];
  const statement = page.order === "asc" ? sql.chainRunsAsc : sql.chainRunsDesc;
  const rows = statement.all(filter.projectId, chain, bounds.lower, bounds.upper, bounds.limit);
  return bodies(rows, ChainRunRecord, "chain run");
}

export function unfinishedChainRuns(sql: Statements): ChainRunRecord[] {
  return bodies(sql.unfinishedChainRuns.all(), ChainRunRecord, "chain run");
}
