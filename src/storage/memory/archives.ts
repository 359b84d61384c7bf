import { ConflictError, NotFoundError } from "../../core/errors.js";
import { ArchivePassage, ArchiveRecord } from "../../records/archive.js";
import type { ArchiveStore } from "../archive-store.js";
import { parseInput } from "../store-rows.js";
import type { PassageSearch } from "../turn-store.js";
import { searchPassages } from "./full-text.js";
import { copy } from "./rows.js";

/**
 * Archives in memory. Maps keep insertion order, which is creation (or attach) order; every
 * write is checked whole before anything changes. `agentExists` ties attachments to the
 * store's agents, whose deletion calls `forgetAgent`.
 */
export class InMemoryArchives implements ArchiveStore {
  private readonly archives = new Map<string, ArchiveRecord>();
  private readonly passages = new Map<string, ArchivePassage>();
  /** Agent id → attached archive ids, in attach order. */
  private readonly attached = new Map<string, string[]>();

  constructor(private readonly agentExists: (agentId: string) => boolean) {}

  async putArchive(archive: ArchiveRecord): Promise<void> {
    const parsed = copy(parseInput(ArchiveRecord, archive, ["archive"]));
    this.archives.set(parsed.id, parsed);
  }

  async getArchive(id: string): Promise<ArchiveRecord | null> {
    const archive = this.archives.get(id);
    return archive ? copy(archive) : null;
  }

  async listArchives(projectId: string): Promise<ArchiveRecord[]> {
    return [...this.archives.values()].filter((a) => a.project_id === projectId).map(copy);
  }

  async deleteArchive(id: string): Promise<boolean> {
    if (!this.archives.delete(id)) return false;
    for (const [passageId, passage] of this.passages) {
      if (passage.archive_id === id) this.passages.delete(passageId);
    }
    for (const agentId of this.attached.keys()) this.dropAttachment(agentId, id);
    return true;
  }

  async addPassages(passages: readonly ArchivePassage[]): Promise<void> {
    const parsed = passages.map((p, i) => copy(parseInput(ArchivePassage, p, ["passages", i])));
    const ids = new Set<string>();
    for (const passage of parsed) {
      if (!this.archives.has(passage.archive_id)) {
        throw new NotFoundError("archive", passage.archive_id);
      }
      if (this.passages.has(passage.id) || ids.has(passage.id)) {
        throw new ConflictError(`passage ${passage.id} exists`);
      }
      ids.add(passage.id);
    }
    for (const passage of parsed) this.passages.set(passage.id, passage);
  }

  async getPassage(id: string): Promise<ArchivePassage | null> {
    const passage = this.passages.get(id);
    return passage ? copy(passage) : null;
  }

  async deletePassage(archiveId: string, passageId: string): Promise<boolean> {
    if (this.passages.get(passageId)?.archive_id !== archiveId) return false;
    return this.passages.delete(passageId);
  }

  async searchPassages(
    archiveIds: readonly string[],
    query: string,
    search: PassageSearch,
  ): Promise<ArchivePassage[]> {
    const wanted = new Set(archiveIds);
    const pool = [...this.passages.values()].filter((p) => wanted.has(p.archive_id));
    return searchPassages(pool, query, search);
  }

  async attach(agentId: string, archiveId: string): Promise<void> {
    if (!this.agentExists(agentId)) throw new NotFoundError("agent", agentId);
    if (!this.archives.has(archiveId)) throw new NotFoundError("archive", archiveId);
    const list = this.attached.get(agentId) ?? [];
    if (!list.includes(archiveId)) this.attached.set(agentId, [...list, archiveId]);
  }

  async detach(agentId: string, archiveId: string): Promise<boolean> {
    return this.dropAttachment(agentId, archiveId);
  }

  async agentArchives(agentId: string): Promise<string[]> {
    return [...(this.attached.get(agentId) ?? [])];
  }

  async archiveAgents(archiveId: string): Promise<string[]> {
    return [...this.attached].filter(([, ids]) => ids.includes(archiveId)).map(([id]) => id);
  }

  /** Forgets an agent's attachments (the store deleted the agent). */
  forgetAgent(agentId: string): void {
    this.attached.delete(agentId);
  }

  private dropAttachment(agentId: string, archiveId: string): boolean {
    const list = this.attached.get(agentId) ?? [];
    if (!list.includes(archiveId)) return false;
    this.attached.set(
      agentId,
      list.filter((id) => id !== archiveId),
    );
    return true;
  }
}
