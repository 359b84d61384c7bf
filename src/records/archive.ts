import { z } from "zod";

/**
 * An archive (Letta's): a named collection of archival passages owned by one project, which
 * any of its agents can have attached; an attached archive's passages are searched with the
 * agent's own. Names need not be unique, as in Letta.
 */
export const ArchiveRecord = z.object({
  id: z.string().min(1).max(200),
  project_id: z.string(),
  name: z.string().min(1).max(255),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type ArchiveRecord = z.infer<typeof ArchiveRecord>;

/** A passage of an archive: an agent's archival passage, with its archive and metadata. */
export const ArchivePassage = z.object({
  id: z.string().min(1).max(200),
  archive_id: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  created_at_ms: z.number(),
});
export type ArchivePassage = z.infer<typeof ArchivePassage>;

/** Letta's `Archive`, as the API answers it. */
export const LettaArchive = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  /** Holdfast searches archives by their words: no embedding. */
  embedding_config: z.null(),
  vector_db_provider: z.literal("native"),
  created_at: z.string(),
  updated_at: z.string(),
});
export type LettaArchive = z.infer<typeof LettaArchive>;

/** Letta's `Passage`: an archive's (`archive_id`) or an agent's own (`agent_id`). */
export const LettaPassage = z.object({
  id: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  archive_id: z.string().nullable(),
  agent_id: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  embedding: z.null(),
  embedding_config: z.null(),
});
export type LettaPassage = z.infer<typeof LettaPassage>;

/** One result of `POST /v1/passages/search`: the passage and how well it ranked. */
export const LettaPassageSearchResult = z.object({
  passage: LettaPassage,
  score: z.number(),
  metadata: z.record(z.string(), z.unknown()),
});
export type LettaPassageSearchResult = z.infer<typeof LettaPassageSearchResult>;
