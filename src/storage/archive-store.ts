import type { ArchivePassage, ArchiveRecord } from "../records/archive.js";
import type { PassageSearch } from "./turn-store.js";

/**
 * Archives, their passages, and which agents have them (Letta's `archives` and
 * `archives_agents`). Archive lists are whole and in creation order (a project has few); the
 * service pages them. Passages are never listed whole: they are found by search.
 *
 * Writes are all or nothing and reject with `ValidationError` for a row that does not parse,
 * `NotFoundError` for an archive or agent that does not exist, `ConflictError` for a taken
 * passage id. Deleting an archive deletes its passages and attachments; deleting an agent
 * deletes its attachments (the archives stay, as in Letta).
 */
export interface ArchiveStore {
  /** Inserts the archive, or replaces the one with its id (keeping its place). */
  putArchive(archive: ArchiveRecord): Promise<void>;
  getArchive(id: string): Promise<ArchiveRecord | null>;
  listArchives(projectId: string): Promise<ArchiveRecord[]>;
  deleteArchive(id: string): Promise<boolean>;

  /** Adds passages to their archives (each names its own); ids are unique among archives'. */
  addPassages(passages: readonly ArchivePassage[]): Promise<void>;
  getPassage(id: string): Promise<ArchivePassage | null>;
  deletePassage(archiveId: string, passageId: string): Promise<boolean>;
  /**
   * Passages of these archives holding any of the query's words, ranked by BM25 over the newest
   * `SEARCH_CANDIDATES` matches (ties in creation order), with the filters of an agent's
   * archival search; at most `topK`.
   */
  searchPassages(
    archiveIds: readonly string[],
    query: string,
    search: PassageSearch,
  ): Promise<ArchivePassage[]>;

  /** Attaches the archive to the agent; attaching again changes nothing. */
  attach(agentId: string, archiveId: string): Promise<void>;
  /** False if it was not attached. */
  detach(agentId: string, archiveId: string): Promise<boolean>;
  /** Ids of the archives attached to the agent, in attach order. */
  agentArchives(agentId: string): Promise<string[]>;
  /** Ids of the agents the archive is attached to, in attach order. */
  archiveAgents(archiveId: string): Promise<string[]>;
}
