import type pg from "pg";
import { ChainRunRecord } from "../../records/chain-run.js";
import type { ChainRunFilter, PageQuery } from "../store.js";
import { pageBounds } from "./paging.js";
import type { Tx } from "./pool.js";
import { bodies, body, seqOf } from "./rows.js";
import { SQL } from "./statements.js";

/** Chain runs in PostgreSQL: one row each, the record whole in `body`. */

/** Writes a checked run (inside a transaction): inserted, or replaced keeping its place. */
export async function writeChainRun(tx: Tx, run: ChainRunRecord): Promise<void> {
  await tx.query(SQL.putChainRun, [
    run.id,
    run.project_id,
    run.chain,
    run.status,
    JSON.stringify(run),
  ]);
}

export async function readChainRun(pool: pg.Pool, id: string): Promise<ChainRunRecord | null> {
  return body((await pool.query(SQL.getChainRun, [id])).rows[0], ChainRunRecord, "chain run");
}

export async function listChainRuns(
  pool: pg.Pool,
  filter: ChainRunFilter,
  page: PageQuery,
): Promise<ChainRunRecord[]> {
  const chain = filter.chain ?? null;
  const bounds = await pageBounds(page, async (id) =>
    seqOf((await pool.query(SQL.chainRunSeq, [id, filter.projectId, chain])).rows[0]),
  );
  if (!bounds) return [];
  const sql = page.order === "asc" ? SQL.chainRunsAsc : SQL.chainRunsDesc;
  const params = [filter.projectId, chain, bounds.lower, bounds.upper, bounds.limit];
  return bodies((await pool.query(sql, params)).rows, ChainRunRecord, "chain run");
}

export async function unfinishedChainRuns(pool: pg.Pool): Promise<ChainRunRecord[]> {
  const { rows } = await pool.query(SQL.unfinishedChainRuns);
  return bodies(rows, ChainRunRecord, "chain run");
}
