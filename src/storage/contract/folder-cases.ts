import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import type { AgentFileState, FileChunk, FileRecord, FolderRecord } from "../../records/folder.js";
import type { ContractContext, StoreContractOptions } from "./fixtures.js";

export function folder(id: string, name = id, projectId = "project-1"): FolderRecord {
  return {
    id,
    project_id: projectId,
    name,
    description: null,
    instructions: null,
    metadata: { team: "docs" },
    embedding: null,
    created_at_ms: 1,
    updated_at_ms: 1,
  };
}

export function file(id: string, folderId: string, name = `${id}.md`): FileRecord {
  return {
    id,
    folder_id: folderId,
    file_name: `${folderId}/${name}`,
    original_file_name: name,
    file_type: "text/markdown",
    file_size: 10,
    processing_status: "completed",
    error_message: null,
    total_chunks: 1,
    chunks_embedded: 0,
    created_at_ms: 1,
    updated_at_ms: 1,
  };
}

function chunk(
  id: string,
  fileId: string,
  folderId: string,
  text: string,
  position = 0,
): FileChunk {
  return { id, file_id: fileId, folder_id: folderId, position, text };
}

function row(agentId: string, fileId: string, folderId: string, open = true): AgentFileState {
  return {
    id: `fa-${agentId}-${fileId}`,
    agent_id: agentId,
    file_id: fileId,
    folder_id: folderId,
    file_name: `${folderId}/${fileId}.md`,
    is_open: open,
    visible_content: open ? "1: hello" : null,
    start_line: null,
    end_line: null,
    last_accessed_ms: 1,
  };
}

export function folderCases(t: ContractContext, options: StoreContractOptions): void {
  describe("folders", () => {
    it("keeps a project's folders in creation order; names are unique within a project", async () => {
      const { folders } = t.store;
      await folders.putFolder(folder("f-1", "docs"));
      await folders.putFolder(folder("f-2", "notes"));
      await folders.putFolder(folder("f-3", "docs", "project-2"));
      await folders.putFolder({ ...folder("f-1", "manuals"), description: "the manuals" });
      const listed = await folders.listFolders("project-1");
      expect(listed.map((f) => f.name)).toEqual(["manuals", "notes"]);
      expect(listed[0]?.description).toBe("the manuals");
      await expect(folders.putFolder(folder("f-4", "notes"))).rejects.toThrow(ConflictError);
      await expect(folders.putFolder({ ...folder("f-5"), name: "" })).rejects.toThrow(
        ValidationError,
      );
      expect(await folders.getFolder("f-3")).toEqual(folder("f-3", "docs", "project-2"));
      expect(await folders.getFolder("nope")).toBeNull();
    });

    it("stores a file with its text and chunks, and finds chunks by their words", async () => {
      const { folders } = t.store;
      await folders.putFolder(folder("f-1"));
      await folders.putFolder(folder("f-2"));
      await folders.addFile(file("file-1", "f-1"), "The lighthouse keeper", [
        chunk("c-1", "file-1", "f-1", "The lighthouse keeper feeds the gulls"),
        chunk("c-2", "file-1", "f-1", "Tides turn twice a day", 1),
      ]);
      await folders.addFile(file("file-2", "f-2"), "gulls", [
        chunk("c-3", "file-2", "f-2", "gulls gulls gulls"),
      ]);
      expect(await folders.getFileContent("file-1")).toBe("The lighthouse keeper");
      expect((await folders.listFiles("f-1")).map((f) => f.id)).toEqual(["file-1"]);
      const hits = await folders.searchChunks(["f-1"], "who feeds the GULLS?", 5);
      expect(hits.map((h) => h.id)).toEqual(["c-1"]);
      expect(hits[0]).toMatchObject({ file_id: "file-1", folder_id: "f-1" });
      const both = await folders.searchChunks(["f-1", "f-2"], "gulls", 5);
      expect(both.map((h) => h.id)).toEqual(["c-3", "c-1"]);
      expect(await folders.searchChunks([], "gulls", 5)).toEqual([]);
      expect(await folders.searchChunks(["f-1"], "?!", 5)).toEqual([]);
    });

    it("refuses a file of a missing folder or with a taken id, writing nothing", async () => {
      const { folders } = t.store;
      await expect(folders.addFile(file("file-1", "f-9"), "x", [])).rejects.toThrow(NotFoundError);
      await folders.putFolder(folder("f-1"));
      await folders.addFile(file("file-1", "f-1"), "x", []);
      const again = folders.addFile(file("file-1", "f-1"), "y", [
        chunk("c-9", "file-1", "f-1", "y"),
      ]);
      await expect(again).rejects.toThrow(ConflictError);
      expect(await folders.searchChunks(["f-1"], "y", 5)).toEqual([]);
      expect(await folders.getFileContent("file-1")).toBe("x");
    });

    it("attaches folders to agents with their file rows, and updates rows in place", async () => {
      const { folders } = t.store;
      const agent = await t.createAgent();
      await folders.putFolder(folder("f-1"));
      await folders.putFolder(folder("f-2"));
      await folders.addFile(file("file-1", "f-1"), "a", []);
      await folders.addFile(file("file-2", "f-1"), "b", []);
      await folders.addFile(file("file-3", "f-2"), "c", []);
      await folders.attachFolder(agent, "f-1", [
        row(agent, "file-1", "f-1"),
        row(agent, "file-2", "f-1"),
      ]);
      await folders.attachFolder(agent, "f-2", [row(agent, "file-3", "f-2")]);
      await folders.attachFolder(agent, "f-1", [row(agent, "file-1", "f-1")]);
      expect(await folders.agentFolders(agent)).toEqual(["f-1", "f-2"]);
      expect(await folders.folderAgents("f-2")).toEqual([agent]);
      expect((await folders.agentFiles(agent)).map((r) => r.file_id)).toEqual(["file-3", "file-1"]);
      await folders.putAgentFiles(agent, [row(agent, "file-3", "f-2", false)]);
      const rows = await folders.agentFiles(agent);
      expect(rows.map((r) => [r.file_id, r.is_open])).toEqual([
        ["file-3", false],
        ["file-1", true],
      ]);
    });

    it("refuses rows of a folder not attached, and attachments of missing agents or folders", async () => {
      const { folders } = t.store;
      const agent = await t.createAgent();
      await folders.putFolder(folder("f-1"));
      await folders.addFile(file("file-1", "f-1"), "a", []);
      await expect(folders.putAgentFiles(agent, [row(agent, "file-1", "f-1")])).rejects.toThrow(
        NotFoundError,
      );
      await expect(folders.attachFolder("agent-none", "f-1", [])).rejects.toThrow(NotFoundError);
      await expect(folders.attachFolder(agent, "f-none", [])).rejects.toThrow(NotFoundError);
      expect(await folders.agentFiles(agent)).toEqual([]);
      expect(await folders.agentFolders(agent)).toEqual([]);
    });

    it("deletes with everything that hangs off: files, chunks, attachments and rows", async () => {
      const { folders } = t.store;
      const one = await t.createAgent();
      const two = await t.createAgent();
      await folders.putFolder(folder("f-1"));
      await folders.putFolder(folder("f-2"));
      await folders.addFile(file("file-1", "f-1"), "a", [chunk("c-1", "file-1", "f-1", "alpha")]);
      await folders.addFile(file("file-2", "f-1"), "b", [chunk("c-2", "file-2", "f-1", "alpha")]);
      await folders.addFile(file("file-3", "f-2"), "c", []);
      await folders.attachFolder(one, "f-1", [
        row(one, "file-1", "f-1"),
        row(one, "file-2", "f-1"),
      ]);
      await folders.attachFolder(one, "f-2", [row(one, "file-3", "f-2")]);
      await folders.attachFolder(two, "f-2", [row(two, "file-3", "f-2")]);

      expect(await folders.deleteFile("file-2")).toBe(true);
      expect(await folders.deleteFile("file-2")).toBe(false);
      expect((await folders.searchChunks(["f-1"], "alpha", 5)).map((h) => h.id)).toEqual(["c-1"]);
      expect((await folders.agentFiles(one)).map((r) => r.file_id)).toEqual(["file-1", "file-3"]);

      expect(await folders.detachFolder(one, "f-2")).toBe(true);
      expect(await folders.detachFolder(one, "f-2")).toBe(false);
      expect((await folders.agentFiles(one)).map((r) => r.file_id)).toEqual(["file-1"]);

      expect(await folders.deleteFolder("f-1")).toBe(true);
      expect(await folders.deleteFolder("f-1")).toBe(false);
      expect(await folders.getFile("file-1")).toBeNull();
      expect(await folders.searchChunks(["f-1"], "alpha", 5)).toEqual([]);
      expect(await folders.agentFolders(one)).toEqual([]);
      expect(await folders.agentFiles(one)).toEqual([]);

      expect(await t.store.deleteAgent(two)).toBe(true);
      expect(await folders.folderAgents("f-2")).toEqual([]);
      expect(await folders.listFiles("f-2")).toHaveLength(1);
    });

    const reopen = options.reopen;
    if (reopen) {
      it("keeps folders, files, chunks and attachments across close and reopen", async () => {
        const agent = await t.createAgent();
        await t.store.folders.putFolder(folder("f-1"));
        await t.store.folders.addFile(file("file-1", "f-1"), "text", [
          chunk("c-1", "file-1", "f-1", "harbour"),
        ]);
        await t.store.folders.attachFolder(agent, "f-1", [row(agent, "file-1", "f-1")]);
        t.store = await reopen(t.store);
        expect(await t.store.folders.listFolders("project-1")).toEqual([folder("f-1")]);
        expect(await t.store.folders.getFile("file-1")).toEqual(file("file-1", "f-1"));
        expect(await t.store.folders.searchChunks(["f-1"], "harbour", 1)).toHaveLength(1);
        expect(await t.store.folders.agentFiles(agent)).toEqual([row(agent, "file-1", "f-1")]);
      });
    }
  });
}

const vec = (...values: number[]) => new Float32Array(values);

export function folderVectorCases(t: ContractContext): void {
  describe("folder chunk vectors", () => {
    it("lists chunks without a vector of a model, stores vectors, and finds the nearest", async () => {
      const { folders } = t.store;
      await folders.putFolder(folder("f-1"));
      await folders.putFolder(folder("f-2"));
      await folders.addFile(file("file-1", "f-1"), "ab", [
        chunk("c-1", "file-1", "f-1", "north"),
        chunk("c-2", "file-1", "f-1", "south", 1),
      ]);
      await folders.addFile(file("file-2", "f-2"), "c", [chunk("c-3", "file-2", "f-2", "east")]);
      await folders.putFolder(folder("f-3"));
      expect(await folders.foldersWithChunks()).toEqual(["f-1", "f-2"]);
      const todo = await folders.unembeddedChunks("f-1", "m", 0, 10);
      expect(todo.map((row) => [row.id, row.text])).toEqual([
        ["c-1", "north"],
        ["c-2", "south"],
      ]);
      const after = await folders.unembeddedChunks("f-1", "m", todo[0]?.position ?? 0, 10);
      expect(after.map((row) => row.id)).toEqual(["c-2"]);
      const stored = await folders.putChunkVectors("f-1", "m", [
        { id: "c-1", vector: vec(1, 0) },
        { id: "c-2", vector: vec(0, 1) },
        { id: "c-3", vector: vec(1, 1) },
      ]);
      expect(stored).toBe(2);
      await folders.putChunkVectors("f-2", "m", [{ id: "c-3", vector: vec(1, 1) }]);
      expect(await folders.unembeddedChunks("f-1", "m", 0, 10)).toEqual([]);
      expect((await folders.unembeddedChunks("f-1", "other", 0, 10)).length).toBe(2);
      const near = await folders.nearestChunks(["f-1"], "m", vec(0.1, 1), 5);
      expect(near.map((hit) => hit.id)).toEqual(["c-2", "c-1"]);
      expect(near[0]).toMatchObject({ file_id: "file-1", folder_id: "f-1", text: "south" });
      const both = await folders.nearestChunks(["f-1", "f-2"], "m", vec(1, 0.9), 2);
      expect(both.map((hit) => hit.id)).toEqual(["c-3", "c-1"]);
      expect(await folders.nearestChunks(["f-1"], "other", vec(1, 0), 5)).toEqual([]);
      await folders.deleteFile("file-1");
      expect(await folders.nearestChunks(["f-1"], "m", vec(1, 0), 5)).toEqual([]);
    });
  });
}
