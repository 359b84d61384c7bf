import { z } from "zod";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { instantMs } from "../core/instant.js";
import type {
  ArchivePassage,
  ArchiveRecord,
  LettaArchive,
  LettaPassage,
  LettaPassageSearchResult,
} from "../records/archive.js";
import { FreeFormObject } from "../records/free-form-json.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { pageOf } from "./agent-service.js";
import { Instant } from "./memory-service.js";
import type { ListQuery } from "./requests.js";

const Name = z.string().min(1).max(255);
const Description = z.string().max(10_000).nullish();
const Tag = z.string().min(1).max(200);

/** Archive passages are searched by their words; embedding them is not built. */
const NO_EMBEDDING =
  "Holdfast searches archive passages by their words (BM25); embedding archives is not " +
  "built: leave it out";

/** `POST /v1/archives`. */
export const CreateArchiveRequest = z.object({
  name: Name,
  description: Description,
  embedding: z.null({ error: NO_EMBEDDING }).optional(),
  embedding_config: z.null({ error: NO_EMBEDDING }).optional(),
});
export type CreateArchiveRequest = z.infer<typeof CreateArchiveRequest>;

/** `PATCH /v1/archives/{archive_id}`: Letta changes the name and description only. */
export const UpdateArchiveRequest = z.object({
  name: Name.nullish(),
  description: Description,
});
export type UpdateArchiveRequest = z.infer<typeof UpdateArchiveRequest>;

/** One passage of `POST /v1/archives/{archive_id}/passages` (and of its batch). */
export const CreateArchivePassage = z.object({
  text: z.string().min(1).max(1_000_000),
  metadata: FreeFormObject.nullish(),
  tags: z.array(Tag).max(100).nullish(),
  created_at: Instant.nullish(),
});
export type CreateArchivePassage = z.infer<typeof CreateArchivePassage>;

export const CreateArchivePassages = z.object({
  passages: z.array(CreateArchivePassage).min(1).max(1_000),
});

/** `POST /v1/passages/search`. */
export const SearchPassagesRequest = z.object({
  query: z.string().min(1).max(10_000),
  agent_id: z.string().max(200).nullish(),
  archive_id: z.string().max(200).nullish(),
  tags: z.array(Tag).max(100).nullish(),
  tag_match_mode: z.enum(["any", "all"]).default("any"),
  limit: z.number().int().min(1).max(100).default(50),
  start_date: Instant.nullish(),
  end_date: Instant.nullish(),
});
export type SearchPassagesRequest = z.infer<typeof SearchPassagesRequest>;

const iso = (ms: number) => new Date(ms).toISOString();

/** Letta's `Archive`. */
export function archiveView(archive: ArchiveRecord): LettaArchive {
  return {
    id: archive.id,
    name: archive.name,
    description: archive.description,
    metadata: archive.metadata,
    embedding_config: null,
    vector_db_provider: "native",
    created_at: iso(archive.created_at_ms),
    updated_at: iso(archive.updated_at_ms),
  };
}

/** Letta's `Passage`, of an archive or of an agent's own archival memory. */
export function archivePassageView(
  passage: Pick<ArchivePassage, "id" | "text" | "tags" | "created_at_ms">,
  owner: Pick<LettaPassage, "archive_id" | "agent_id" | "metadata">,
): LettaPassage {
  return {
    id: passage.id,
    text: passage.text,
    tags: passage.tags,
    ...owner,
    created_at: iso(passage.created_at_ms),
    embedding: null,
    embedding_config: null,
  };
}

/**
 * Archives (Letta's `/v1/archives`) and the project-wide passage search, scoped to the
 * caller's project like agents: another project's archive is reported as missing.
 */
export class ArchiveService {
  constructor(private readonly ctx: ServiceContext) {}

  async list(projectId: string, query: ListQuery, filter: { name?: string; agentId?: string }) {
    let archives = await this.ctx.store.archives.listArchives(projectId);
    if (filter.name !== undefined) archives = archives.filter((a) => a.name === filter.name);
    if (filter.agentId !== undefined) {
      await requireAgent(this.ctx, projectId, filter.agentId);
      const attached = new Set(await this.ctx.store.archives.agentArchives(filter.agentId));
      archives = archives.filter((a) => attached.has(a.id));
    }
    return pageOf(archives, query).map(archiveView);
  }

  async create(projectId: string, body: CreateArchiveRequest) {
    const now = this.ctx.clock.now();
    const archive: ArchiveRecord = {
      id: this.ctx.ids.next("archive"),
      project_id: projectId,
      name: body.name,
      description: body.description ?? null,
      metadata: {},
      created_at_ms: now,
      updated_at_ms: now,
    };
    await this.ctx.store.archives.putArchive(archive);
    return archiveView(archive);
  }

  async get(projectId: string, archiveId: string) {
    return archiveView(await this.requireArchive(projectId, archiveId));
  }

  async update(projectId: string, archiveId: string, body: UpdateArchiveRequest) {
    const archive = await this.requireArchive(projectId, archiveId);
    const updated: ArchiveRecord = {
      ...archive,
      name: body.name ?? archive.name,
      description: body.description === undefined ? archive.description : body.description,
      updated_at_ms: this.ctx.clock.now(),
    };
    await this.ctx.store.archives.putArchive(updated);
    return archiveView(updated);
  }

  async delete(projectId: string, archiveId: string): Promise<void> {
    await this.requireArchive(projectId, archiveId);
    await this.ctx.store.archives.deleteArchive(archiveId);
  }

  /** Adds the passages to the archive, all or none; answers them in the order given. */
  async addPassages(projectId: string, archiveId: string, bodies: CreateArchivePassage[]) {
    await this.requireArchive(projectId, archiveId);
    const now = this.ctx.clock.now();
    const passages = bodies.map(
      (body): ArchivePassage => ({
        id: this.ctx.ids.next("passage"),
        archive_id: archiveId,
        text: body.text,
        tags: [...new Set(body.tags ?? [])],
        metadata: body.metadata ?? {},
        created_at_ms: body.created_at ? instantMs(body.created_at) : now,
      }),
    );
    await this.ctx.store.archives.addPassages(passages);
    return passages.map((p) => archivePassageView(p, { ...p, agent_id: null }));
  }

  async deletePassage(projectId: string, archiveId: string, passageId: string): Promise<void> {
    await this.requireArchive(projectId, archiveId);
    if (!(await this.ctx.store.archives.deletePassage(archiveId, passageId))) {
      throw new NotFoundError("passage", passageId);
    }
  }

  async attach(projectId: string, agentId: string, archiveId: string): Promise<null> {
    await requireAgent(this.ctx, projectId, agentId);
    await this.requireArchive(projectId, archiveId);
    await this.ctx.store.archives.attach(agentId, archiveId);
    return null;
  }

  async detach(projectId: string, agentId: string, archiveId: string): Promise<null> {
    await requireAgent(this.ctx, projectId, agentId);
    await this.requireArchive(projectId, archiveId);
    await this.ctx.store.archives.detach(agentId, archiveId);
    return null;
  }

  /**
   * Letta's passage search: an agent's archival memory (its own passages and its archives'),
   * or one archive's passages, ranked best first; the score is the rank's reciprocal (1 for
   * the best), since the rankings fused carry no common scale.
   */
  async search(
    projectId: string,
    body: SearchPassagesRequest,
  ): Promise<LettaPassageSearchResult[]> {
    const { agent_id: agentId, archive_id: archiveId } = body;
    const tags = body.tags ?? [];
    const search = {
      topK: body.limit,
      ...(tags.length > 0 && (body.tag_match_mode === "any" ? { anyTags: tags } : { tags })),
      ...(body.start_date && { fromMs: instantMs(body.start_date) }),
      ...(body.end_date && { toMs: instantMs(body.end_date) }),
    };
    const scored = <T>(found: T[]) => found.map((passage, rank) => ({ passage, rank }));
    if (agentId) {
      await requireAgent(this.ctx, projectId, agentId);
      const found = await this.ctx.store.searchPassages(agentId, body.query, search);
      const archived = await this.archivedAmong(found.map((p) => p.id));
      return scored(found).map(({ passage, rank }) => {
        const inArchive = archived.get(passage.id);
        const owner = inArchive
          ? { archive_id: inArchive.archive_id, agent_id: null, metadata: inArchive.metadata }
          : { archive_id: null, agent_id: agentId, metadata: {} };
        return { passage: archivePassageView(passage, owner), score: 1 / (rank + 1), metadata: {} };
      });
    }
    if (archiveId) {
      await this.requireArchive(projectId, archiveId);
      const found = await this.ctx.store.archives.searchPassages([archiveId], body.query, search);
      return scored(found).map(({ passage, rank }) => ({
        passage: archivePassageView(passage, { ...passage, agent_id: null }),
        score: 1 / (rank + 1),
        metadata: {},
      }));
    }
    const message =
      "searching every passage of the project is not built: pass agent_id (an agent's " +
      "archival memory and its archives) or archive_id";
    throw new ValidationError("invalid passage search", [{ path: "agent_id", message }]);
  }

  /** Which of these passage ids are archives' passages (the rest are an agent's own). */
  private async archivedAmong(ids: string[]): Promise<Map<string, ArchivePassage>> {
    const found = await Promise.all(ids.map((id) => this.ctx.store.archives.getPassage(id)));
    return new Map(found.flatMap((p) => (p ? [[p.id, p] as const] : [])));
  }

  private async requireArchive(projectId: string, archiveId: string): Promise<ArchiveRecord> {
    const archive = await this.ctx.store.archives.getArchive(archiveId);
    if (!archive || archive.project_id !== projectId) throw new NotFoundError("archive", archiveId);
    return archive;
  }
}
