import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import type { ArchivePassage, ArchiveRecord } from "../../records/archive.js";
import type { ContractContext } from "./fixtures.js";

function archive(id: string, name = id, projectId = "project-1"): ArchiveRecord {
  const base = { id, project_id: projectId, name, description: null };
  return { ...base, metadata: { team: "research" }, created_at_ms: 1, updated_at_ms: 1 };
}

function passage(
  id: string,
  archiveId: string,
  text: string,
  tags: string[] = [],
  createdAtMs = 2_000,
): ArchivePassage {
  const base = { id, archive_id: archiveId, text, tags };
  return { ...base, metadata: { source: "notes" }, created_at_ms: createdAtMs };
}

const ids = (found: { id: string }[]) => found.map((p) => p.id);

export function archiveCases(t: ContractContext): void {
  describe("archives", () => {
    it("keeps a project's archives in creation order; putting one again replaces it in place", async () => {
      const { archives } = t.store;
      await archives.putArchive(archive("ar-1", "papers"));
      await archives.putArchive(archive("ar-2", "papers"));
      await archives.putArchive(archive("ar-3", "other", "project-2"));
      await archives.putArchive({ ...archive("ar-1", "old papers"), description: "2019" });
      const listed = await archives.listArchives("project-1");
      expect(listed.map((a) => [a.id, a.name])).toEqual([
        ["ar-1", "old papers"],
        ["ar-2", "papers"],
      ]);
      expect(listed[0]?.description).toBe("2019");
      expect(await archives.getArchive("ar-3")).toEqual(archive("ar-3", "other", "project-2"));
      expect(await archives.getArchive("nope")).toBeNull();
      await expect(archives.putArchive({ ...archive("ar-4"), name: "" })).rejects.toThrow(
        ValidationError,
      );
    });

    it("finds passages of the archives asked by their words, best first, with filters", async () => {
      const { archives } = t.store;
      await archives.putArchive(archive("ar-1"));
      await archives.putArchive(archive("ar-2"));
      await archives.addPassages([
        passage("ap-1", "ar-1", "The lighthouse keeper feeds the gulls", ["birds"], 1_000),
        passage("ap-2", "ar-1", "Tides turn twice a day", ["sea"], 2_000),
        passage("ap-3", "ar-2", "gulls gulls gulls", ["birds", "loud"], 3_000),
      ]);
      const one = await archives.searchPassages(["ar-1"], "who feeds the GULLS?", { topK: 5 });
      expect(ids(one)).toEqual(["ap-1"]);
      expect(one[0]).toEqual(
        passage("ap-1", "ar-1", "The lighthouse keeper feeds the gulls", ["birds"], 1_000),
      );
      const both = await archives.searchPassages(["ar-1", "ar-2"], "gulls", { topK: 5 });
      expect(ids(both).sort()).toEqual(["ap-1", "ap-3"]);
      const search = (options: object) =>
        archives.searchPassages(["ar-1", "ar-2"], "gulls tides", { topK: 5, ...options });
      expect(ids(await search({ tags: ["birds", "loud"] }))).toEqual(["ap-3"]);
      expect(ids(await search({ anyTags: ["sea", "nothing"] }))).toEqual(["ap-2"]);
      expect(ids(await search({ fromMs: 1_500, toMs: 2_000 }))).toEqual(["ap-2"]);
      expect(await search({ topK: 0 })).toEqual([]);
      expect(await archives.searchPassages([], "gulls", { topK: 5 })).toEqual([]);
      expect(await archives.searchPassages(["ar-1"], "?!", { topK: 5 })).toEqual([]);
      expect(await archives.searchPassages(["missing"], "gulls", { topK: 5 })).toEqual([]);
    });

    it("refuses passages of a missing archive or with a taken id, writing none of the batch", async () => {
      const { archives } = t.store;
      await archives.putArchive(archive("ar-1"));
      const orphan = archives.addPassages([
        passage("ap-1", "ar-1", "kept apart"),
        passage("ap-2", "ar-9", "nowhere"),
      ]);
      await expect(orphan).rejects.toThrow(NotFoundError);
      await archives.addPassages([passage("ap-1", "ar-1", "first words")]);
      const taken = archives.addPassages([
        passage("ap-3", "ar-1", "second words"),
        passage("ap-1", "ar-1", "again"),
      ]);
      await expect(taken).rejects.toThrow(ConflictError);
      expect(ids(await archives.searchPassages(["ar-1"], "words kept", { topK: 5 }))).toEqual([
        "ap-1",
      ]);
      expect((await archives.getPassage("ap-1"))?.text).toBe("first words");
      expect(await archives.getPassage("ap-3")).toBeNull();
    });

    it("deletes a passage only from its own archive", async () => {
      const { archives } = t.store;
      await archives.putArchive(archive("ar-1"));
      await archives.putArchive(archive("ar-2"));
      await archives.addPassages([passage("ap-1", "ar-1", "harbour")]);
      expect(await archives.deletePassage("ar-2", "ap-1")).toBe(false);
      expect(await archives.deletePassage("ar-1", "ap-1")).toBe(true);
      expect(await archives.deletePassage("ar-1", "ap-1")).toBe(false);
      expect(await archives.searchPassages(["ar-1"], "harbour", { topK: 5 })).toEqual([]);
    });

    it("attaches archives to agents once each, in attach order, and refuses unknown ends", async () => {
      const { archives } = t.store;
      const a = await t.createAgent();
      const b = await t.createAgent();
      await archives.putArchive(archive("ar-1"));
      await archives.putArchive(archive("ar-2"));
      await archives.attach(a, "ar-2");
      await archives.attach(a, "ar-1");
      await archives.attach(a, "ar-2");
      await archives.attach(b, "ar-2");
      expect(await archives.agentArchives(a)).toEqual(["ar-2", "ar-1"]);
      expect(await archives.archiveAgents("ar-2")).toEqual([a, b]);
      await expect(archives.attach("agent-missing", "ar-1")).rejects.toThrow(NotFoundError);
      await expect(archives.attach(a, "ar-9")).rejects.toThrow(NotFoundError);
      expect(await archives.detach(a, "ar-2")).toBe(true);
      expect(await archives.detach(a, "ar-2")).toBe(false);
      expect(await archives.agentArchives(a)).toEqual(["ar-1"]);
    });

    it("deleting an archive takes its passages and attachments; deleting an agent, its attachments", async () => {
      const { archives } = t.store;
      const a = await t.createAgent();
      const b = await t.createAgent();
      await archives.putArchive(archive("ar-1"));
      await archives.putArchive(archive("ar-2"));
      await archives.addPassages([passage("ap-1", "ar-1", "compass")]);
      await archives.attach(a, "ar-1");
      await archives.attach(a, "ar-2");
      await archives.attach(b, "ar-2");
      expect(await archives.deleteArchive("ar-1")).toBe(true);
      expect(await archives.deleteArchive("ar-1")).toBe(false);
      expect(await archives.getPassage("ap-1")).toBeNull();
      expect(await archives.agentArchives(a)).toEqual(["ar-2"]);
      expect(await t.store.deleteAgent(a)).toBe(true);
      expect(await archives.archiveAgents("ar-2")).toEqual([b]);
      expect(await archives.getArchive("ar-2")).not.toBeNull();
    });
  });
}
