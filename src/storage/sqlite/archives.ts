import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { z } from "zod";
import { NotFoundError } from "../../core/errors.js";
import { ArchivePassage, ArchiveRecord } from "../../records/archive.js";
import type { ArchiveStore } from "../archive-store.js";
import { SEARCH_CANDIDATES } from "../bm25.js";
import { checkRow, decodeRow, parseInput } from "../store-rows.js";
import type { PassageSearch } from "../turn-store.js";
import { ownedMatch, ownedTerms } from "./full-text.js";
import { PreparedStatements } from "./prepared.js";
import { bodies, body, changed, text } from "./rows.js";
import { PASSAGE_FILTERS } from "./search-statements.js";

const SQL = {
  putArchive: `INSERT INTO archives (id, project_id, body) VALUES (?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET body = excluded.body`,
  getArchive: "SELECT body FROM archives WHERE id = ?",
  archiveKey: "SELECT seq FROM archives WHERE id = ?",
  archiveKeys: "SELECT seq FROM archives WHERE id IN (SELECT value FROM json_each(?))",
  listArchives: "SELECT body FROM archives WHERE project_id = ? ORDER BY seq",
  deleteArchive: "DELETE FROM archives WHERE id = ?",
  insertPassage: `INSERT INTO archive_passages (id, archive_id, text, tags, metadata, created_at_ms)
    VALUES (?, ?, ?, ?, ?, ?) RETURNING seq`,
  indexPassage: "INSERT INTO archive_passages_fts (rowid, terms) VALUES (?, ?)",
  getPassage: "SELECT * FROM archive_passages WHERE id = ?",
  deletePassage: "DELETE FROM archive_passages WHERE id = ? AND archive_id = ?",
  searchPassages: `WITH matched AS (
      SELECT f.rowid AS seq FROM archive_passages_fts AS f
      JOIN archive_passages AS p ON p.seq = f.rowid
      WHERE archive_passages_fts MATCH ?1 AND ${PASSAGE_FILTERS}
      ORDER BY f.rowid DESC LIMIT ?7)
    SELECT p.* FROM archive_passages_fts AS f JOIN archive_passages AS p ON p.seq = f.rowid
    WHERE archive_passages_fts MATCH ?1 AND f.rowid >= (SELECT coalesce(min(seq), 0) FROM matched)
      AND ${PASSAGE_FILTERS}
    ORDER BY bm25(archive_passages_fts), p.seq LIMIT ?3`,
  agentExists: "SELECT 1 AS found FROM agents WHERE id = ?",
  attach: "INSERT INTO agent_archives (agent_id, archive_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
  detach: "DELETE FROM agent_archives WHERE agent_id = ? AND archive_id = ?",
  agentArchives: "SELECT archive_id FROM agent_archives WHERE agent_id = ? ORDER BY seq",
  archiveAgents: "SELECT agent_id FROM agent_archives WHERE archive_id = ? ORDER BY seq",
} as const;

const Tags = z.array(z.string());
const Metadata = z.record(z.string(), z.unknown());

function passageOf(row: Record<string, SQLOutputValue>): ArchivePassage {
  const passage = {
    id: row.id,
    archive_id: row.archive_id,
    text: row.text,
    tags: decodeRow(Tags, text(row, "tags"), "passage tags"),
    metadata: decodeRow(Metadata, text(row, "metadata"), "passage metadata"),
    created_at_ms: row.created_at_ms,
  };
  return checkRow(ArchivePassage, passage, "archive passage");
}

/**
 * Archives in SQLite (migration 16): records whole in `body`, creation order by `seq`, the
 * schema's cascades doing the deleting. Each archive's passages are indexed as its own terms
 * (`ownedTerms` keyed by the archive's seq), as an agent's passages are by the agent's, so a
 * search reads the postings of its archives alone.
 */
export class SqliteArchives implements ArchiveStore {
  private readonly sql: PreparedStatements<keyof typeof SQL>;

  constructor(db: DatabaseSync) {
    this.sql = new PreparedStatements(db, SQL);
  }

  async putArchive(archive: ArchiveRecord): Promise<void> {
    const parsed = parseInput(ArchiveRecord, archive, ["archive"]);
    this.sql.write(() =>
      this.sql.run("putArchive", parsed.id, parsed.project_id, JSON.stringify(parsed)),
    );
  }

  async getArchive(id: string): Promise<ArchiveRecord | null> {
    return body(this.sql.get("getArchive", id), ArchiveRecord, "archive");
  }

  async listArchives(projectId: string): Promise<ArchiveRecord[]> {
    return bodies(this.sql.all("listArchives", projectId), ArchiveRecord, "archive");
  }

  async deleteArchive(id: string): Promise<boolean> {
    return this.sql.write(() => changed(this.sql.run("deleteArchive", id)));
  }

  async addPassages(passages: readonly ArchivePassage[]): Promise<void> {
    const parsed = passages.map((p, i) => parseInput(ArchivePassage, p, ["passages", i]));
    this.sql.write(() => {
      for (const passage of parsed) {
        const key = this.sql.get("archiveKey", passage.archive_id)?.seq;
        if (key === undefined) throw new NotFoundError("archive", passage.archive_id);
        const row = this.sql.get(
          "insertPassage",
          passage.id,
          passage.archive_id,
          passage.text,
          JSON.stringify(passage.tags),
          JSON.stringify(passage.metadata),
          passage.created_at_ms,
        );
        this.sql.run("indexPassage", Number(row?.seq), ownedTerms(Number(key), passage.text));
      }
    });
  }

  async getPassage(id: string): Promise<ArchivePassage | null> {
    const row = this.sql.get("getPassage", id);
    return row ? passageOf(row) : null;
  }

  async deletePassage(archiveId: string, passageId: string): Promise<boolean> {
    return this.sql.write(() => changed(this.sql.run("deletePassage", passageId, archiveId)));
  }

  async searchPassages(
    archiveIds: readonly string[],
    query: string,
    search: PassageSearch,
  ): Promise<ArchivePassage[]> {
    const limit = Math.floor(search.topK);
    const keys = this.sql.all("archiveKeys", JSON.stringify(archiveIds)).map((r) => r.seq);
    const matches = keys.map((key) => ownedMatch(Number(key), query));
    if (!(limit > 0) || matches.length === 0 || matches.includes(null)) return [];
    const json = (list?: readonly string[]) => (list === undefined ? null : JSON.stringify(list));
    const { tags, anyTags, fromMs, toMs } = search;
    return this.sql
      .all(
        "searchPassages",
        matches.join(" OR "),
        json(tags),
        limit,
        json(anyTags),
        fromMs ?? null,
        toMs ?? null,
        SEARCH_CANDIDATES,
      )
      .map(passageOf);
  }

  async attach(agentId: string, archiveId: string): Promise<void> {
    this.sql.write(() => {
      if (!this.sql.get("agentExists", agentId)) throw new NotFoundError("agent", agentId);
      if (!this.sql.get("archiveKey", archiveId)) throw new NotFoundError("archive", archiveId);
      this.sql.run("attach", agentId, archiveId);
    });
  }

  async detach(agentId: string, archiveId: string): Promise<boolean> {
    return this.sql.write(() => changed(this.sql.run("detach", agentId, archiveId)));
  }

  async agentArchives(agentId: string): Promise<string[]> {
    return this.sql.all("agentArchives", agentId).map((row) => text(row, "archive_id"));
  }

  async archiveAgents(archiveId: string): Promise<string[]> {
    return this.sql.all("archiveAgents", archiveId).map((row) => text(row, "agent_id"));
  }
}
