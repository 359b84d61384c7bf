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
