import type pg from "pg";
import { NotFoundError } from "../../core/errors.js";
import { ArchivePassage, ArchiveRecord } from "../../records/archive.js";
import type { ArchiveStore } from "../archive-store.js";
import { SEARCH_CANDIDATES } from "../bm25.js";
import { checkRow, parseInput } from "../store-rows.js";
import type { PassageSearch } from "../turn-store.js";
import { anyOf, ownedQueryTerms, ownedVector } from "./full-text.js";
import { inTransaction } from "./pool.js";
import { bodies, body, type Row, seqOf, text } from "./rows.js";
import { passageFilters, score, weighted } from "./search.js";

// $2: the archives' lexemes of the query words; $3: any of them; $4: how many results;
// $5: tags a passage must all have (JSONB array); $6: tags it must have one of; $7, $8: the
// creation time range, both ends included (NULL: no such filter); $9: candidates ranked.
const searchSql = (terms: number) => `WITH ${weighted("archive_passages", "terms", terms)},
  candidates AS (
    SELECT p.* FROM archive_passages AS p
    WHERE p.archive_id = ANY ($1) AND p.terms @@ $3::tsquery
      AND ($5::jsonb IS NULL OR p.tags @> $5)
      AND ($6::text[] IS NULL OR p.tags ?| $6)
      AND ($7::float8 IS NULL OR p.created_at_ms >= $7)
      AND ($8::float8 IS NULL OR p.created_at_ms <= $8)
    ORDER BY p.seq DESC LIMIT $9)
  SELECT p.id, p.archive_id, p.text, p.tags, p.metadata, p.created_at_ms FROM candidates AS p
  ORDER BY ${score("p.terms")} DESC, p.seq LIMIT $4`;

function passageOf(row: Row): ArchivePassage {
  const { id, archive_id, text, tags, metadata, created_at_ms } = row;
  const passage = { id, archive_id, text, tags, metadata, created_at_ms };
  return checkRow(ArchivePassage, passage, "archive passage");
}

/**
 * Archives in PostgreSQL, as SQLite keeps them: records whole in `body`, creation order by
 * `seq`, the schema's cascades doing the deleting, and each archive's passages indexed as its
 * own terms, ranked as an agent's passages are (`search.ts`).
 */
export class PostgresArchives implements ArchiveStore {
  constructor(private readonly pool: pg.Pool) {}

  private async rows(sql: string, params: unknown[]): Promise<Row[]> {
    return (await this.pool.query(sql, params)).rows;
  }

  private async changed(sql: string, params: unknown[]): Promise<boolean> {
    const result = await inTransaction(this.pool, (tx) => tx.query(sql, params));
    return (result.rowCount ?? 0) > 0;
  }

  async putArchive(archive: ArchiveRecord): Promise<void> {
    const parsed = parseInput(ArchiveRecord, archive, ["archive"]);
    await inTransaction(this.pool, (tx) =>
      tx.query(
        `INSERT INTO archives (id, project_id, body) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET body = excluded.body`,
        [parsed.id, parsed.project_id, JSON.stringify(parsed)],
      ),
    );
  }

  async getArchive(id: string): Promise<ArchiveRecord | null> {
    const found = await this.rows("SELECT body FROM archives WHERE id = $1", [id]);
    return body(found[0], ArchiveRecord, "archive");
  }

  async listArchives(projectId: string): Promise<ArchiveRecord[]> {
    const sql = "SELECT body FROM archives WHERE project_id = $1 ORDER BY seq";
    return bodies(await this.rows(sql, [projectId]), ArchiveRecord, "archive");
  }

  async deleteArchive(id: string): Promise<boolean> {
    return this.changed("DELETE FROM archives WHERE id = $1", [id]);
  }

  async addPassages(passages: readonly ArchivePassage[]): Promise<void> {
    const parsed = passages.map((p, i) => parseInput(ArchivePassage, p, ["passages", i]));
    await inTransaction(this.pool, async (tx) => {
      for (const passage of parsed) {
        const found = await tx.query("SELECT seq FROM archives WHERE id = $1", [
          passage.archive_id,
        ]);
        const key = seqOf(found.rows[0]);
        if (key === null) throw new NotFoundError("archive", passage.archive_id);
        await tx.query(
          `INSERT INTO archive_passages
             (id, archive_id, text, tags, metadata, created_at_ms, terms)
           VALUES ($1, $2, $3, $4, $5, $6, $7::tsvector)`,
          [
            passage.id,
            passage.archive_id,
            passage.text,
            JSON.stringify(passage.tags),
            JSON.stringify(passage.metadata),
            passage.created_at_ms,
            ownedVector(key, passage.text),
          ],
        );
      }
    });
  }

  async getPassage(id: string): Promise<ArchivePassage | null> {
    const found = await this.rows("SELECT * FROM archive_passages WHERE id = $1", [id]);
    return found[0] ? passageOf(found[0]) : null;
  }

  async deletePassage(archiveId: string, passageId: string): Promise<boolean> {
    const sql = "DELETE FROM archive_passages WHERE id = $1 AND archive_id = $2";
    return this.changed(sql, [passageId, archiveId]);
  }

  async searchPassages(
    archiveIds: readonly string[],
    query: string,
    search: PassageSearch,
  ): Promise<ArchivePassage[]> {
    const limit = Math.floor(search.topK);
    const keys = await this.rows("SELECT seq FROM archives WHERE id = ANY ($1)", [archiveIds]);
    const terms = keys.flatMap((row) => ownedQueryTerms(seqOf(row) ?? 0, query));
    if (!(limit > 0) || terms.length === 0) return [];
    const filters = passageFilters(search);
    const params = [archiveIds, terms, anyOf(terms), limit, ...filters, SEARCH_CANDIDATES];
    return (await this.rows(searchSql(terms.length), params)).map(passageOf);
  }

  async attach(agentId: string, archiveId: string): Promise<void> {
    await inTransaction(this.pool, async (tx) => {
      const agent = await tx.query("SELECT 1 FROM agents WHERE id = $1", [agentId]);
      if (agent.rowCount === 0) throw new NotFoundError("agent", agentId);
      const archive = await tx.query("SELECT 1 FROM archives WHERE id = $1", [archiveId]);
      if (archive.rowCount === 0) throw new NotFoundError("archive", archiveId);
      await tx.query(
        `INSERT INTO agent_archives (agent_id, archive_id) VALUES ($1, $2)
         ON CONFLICT DO NOTHING`,
        [agentId, archiveId],
      );
    });
  }

  async detach(agentId: string, archiveId: string): Promise<boolean> {
    const sql = "DELETE FROM agent_archives WHERE agent_id = $1 AND archive_id = $2";
    return this.changed(sql, [agentId, archiveId]);
  }

  async agentArchives(agentId: string): Promise<string[]> {
    const sql = "SELECT archive_id FROM agent_archives WHERE agent_id = $1 ORDER BY seq";
    return (await this.rows(sql, [agentId])).map((row) => text(row, "archive_id"));
  }

  async archiveAgents(archiveId: string): Promise<string[]> {
    const sql = "SELECT agent_id FROM agent_archives WHERE archive_id = $1 ORDER BY seq";
    return (await this.rows(sql, [archiveId])).map((row) => text(row, "agent_id"));
  }
}
