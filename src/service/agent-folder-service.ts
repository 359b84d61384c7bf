import { NotFoundError, ValidationError } from "../core/errors.js";
import { MAX_FILES_OPEN, STORED_VIEW_CHARS, truncateView, viewFile } from "../memory/file-view.js";
import { attachFiles, closeRow, openFile } from "../memory/open-files.js";
import type { AgentFileState } from "../records/folder.js";
import { FOLDER_TOOL_NAMES } from "../tools/builtin/folder-tools.js";
import { agentState, requireAgent, type ServiceContext } from "./agent-access.js";
import { pageOf } from "./agent-service.js";
import { FolderService, newFileRow } from "./folder-service.js";
import { agentFileView, folderView } from "./folder-views.js";
import type { ListQuery } from "./requests.js";
import { ToolService } from "./tool-service.js";

/**
 * An agent's folders and files (Letta's `/v1/agents/{id}/folders` and `…/files`): attaching a
 * folder opens its files in the agent's context (at most five open; the least recently used
 * close) and offers the agent Letta's file tools; detaching the last folder withdraws them.
 */
export class AgentFolderService {
  private readonly folders: FolderService;
  private readonly tools: ToolService;

  constructor(private readonly ctx: ServiceContext) {
    this.folders = new FolderService(ctx);
    this.tools = new ToolService(ctx);
  }

  async list(projectId: string, agentId: string, query: ListQuery) {
    await requireAgent(this.ctx, projectId, agentId);
    return pageOf(await this.attached(agentId), query).map(folderView);
  }

  async attach(projectId: string, agentId: string, folderId: string) {
    await requireAgent(this.ctx, projectId, agentId);
    await this.folders.requireFolder(projectId, folderId);
    const { folders } = this.ctx.store;
    const current = (await folders.agentFiles(agentId)).filter((r) => r.folder_id !== folderId);
    const added: AgentFileState[] = [];
    for (const file of await folders.listFiles(folderId)) {
      const text = (await folders.getFileContent(file.id)) ?? "";
      added.push(newFileRow(this.ctx, agentId, file, text));
    }
    const { rows } = attachFiles(current, added, MAX_FILES_OPEN);
    const own = new Set(added.map((row) => row.file_id));
    await folders.attachFolder(
      agentId,
      folderId,
      rows.filter((r) => own.has(r.file_id)),
    );
    await folders.putAgentFiles(
      agentId,
      rows.filter((r) => !own.has(r.file_id)),
    );
    for (const name of FOLDER_TOOL_NAMES) {
      // A type whose ceiling forbids them keeps the folder in view, without the tools.
      await this.tools.attach(projectId, agentId, name).catch((error: unknown) => {
        if (!(error instanceof ValidationError)) throw error;
      });
    }
    return this.state(projectId, agentId);
  }

  async detach(projectId: string, agentId: string, folderId: string) {
    await requireAgent(this.ctx, projectId, agentId);
    await this.folders.requireFolder(projectId, folderId);
    await this.ctx.store.folders.detachFolder(agentId, folderId);
    if ((await this.ctx.store.folders.agentFolders(agentId)).length === 0) {
      for (const name of FOLDER_TOOL_NAMES) await this.tools.detach(projectId, agentId, name);
    }
    return this.state(projectId, agentId);
  }

  /** Letta's `PaginatedAgentFiles`: the agent's files, optionally only open or closed ones. */
  async files(projectId: string, agentId: string, query: ListQuery, isOpen?: boolean) {
    await requireAgent(this.ctx, projectId, agentId);
    const rows = (await this.ctx.store.folders.agentFiles(agentId)).filter(
      (row) => isOpen === undefined || row.is_open === isOpen,
    );
    const page = pageOf(rows, { ...query, limit: query.limit + 1 });
    const shown = page.slice(0, query.limit);
    const names = new Map((await this.attached(agentId)).map((f) => [f.id, f.name]));
    return {
      files: shown.map((row) => agentFileView(row, names.get(row.folder_id) ?? "Unknown")),
      next_cursor: page.length > query.limit ? (shown.at(-1)?.id ?? null) : null,
      has_more: page.length > query.limit,
    };
  }

  /** Opens the whole file in the agent's context; answers the names LRU closed. */
  async open(projectId: string, agentId: string, fileId: string): Promise<string[]> {
    const rows = await this.rowsWith(projectId, agentId, fileId);
    const row = rows.find((r) => r.file_id === fileId) as AgentFileState;
    const text = (await this.ctx.store.folders.getFileContent(fileId)) ?? "";
    const view = viewFile(row.file_name, text);
    const shown = view.ok
      ? { ...view, text: truncateView(view.text, STORED_VIEW_CHARS) }
      : { text: "", startLine: null, endLine: null };
    const opened = openFile(rows, fileId, shown, MAX_FILES_OPEN, this.ctx.clock.now());
    await this.ctx.store.folders.putAgentFiles(agentId, opened.rows);
    return opened.closed;
  }

  async close(projectId: string, agentId: string, fileId: string) {
    const rows = await this.rowsWith(projectId, agentId, fileId);
    const row = rows.find((r) => r.file_id === fileId) as AgentFileState;
    await this.ctx.store.folders.putAgentFiles(agentId, [closeRow(row)]);
    return { message: `File id=${fileId} successfully closed` };
  }

  /** Closes every open file; answers their names. */
  async closeAll(projectId: string, agentId: string): Promise<string[]> {
    await requireAgent(this.ctx, projectId, agentId);
    const open = (await this.ctx.store.folders.agentFiles(agentId)).filter((row) => row.is_open);
    await this.ctx.store.folders.putAgentFiles(agentId, open.map(closeRow));
    return open.map((row) => row.file_name);
  }

  private async rowsWith(projectId: string, agentId: string, fileId: string) {
    await requireAgent(this.ctx, projectId, agentId);
    const rows = await this.ctx.store.folders.agentFiles(agentId);
    if (!rows.some((row) => row.file_id === fileId)) throw new NotFoundError("file", fileId);
    return rows;
  }

  private async attached(agentId: string) {
    const ids = await this.ctx.store.folders.agentFolders(agentId);
    const found = await Promise.all(ids.map((id) => this.ctx.store.folders.getFolder(id)));
    return found.filter((folder) => folder !== null);
  }

  /** The agent's state, with its folders as Letta's `sources`. */
  private async state(projectId: string, agentId: string) {
    return agentState(this.ctx, await requireAgent(this.ctx, projectId, agentId));
  }
}
