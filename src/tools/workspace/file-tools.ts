import { mkdir, readdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import {
  editFileTool,
  listDirectoryTool,
  readFileTool,
  writeFileTool,
} from "../builtin/workspace-tools.js";
import { failure, implementTool, success, type ToolImplementation } from "../tool.js";
import {
  byCodeUnits,
  decode,
  inWorkspace,
  looksBinary,
  readRegular,
  writeWhole,
} from "./file-access.js";
import { searchFilesImplementation } from "./search-files.js";

const READ_CAP_BYTES = 64 * 1024;
const LIST_CAP_ENTRIES = 1000;

export const readFileImplementation = implementTool(
  readFileTool,
  { idempotent: true },
  ({ path: requested }, context) =>
    inWorkspace(context, requested, "read", async (path) => {
      const file = await readRegular(path, requested, READ_CAP_BYTES);
      if ("status" in file) return file;
      if (looksBinary(file.bytes)) {
        return failure(`'${requested}' looks like a binary file; read_file only shows text`);
      }
      if (file.size === 0) return success(`'${requested}' is empty`);
      const text = decode(file.bytes);
      if (file.size <= file.bytes.length) return success(text);
      return success(
        `${text}\n\n[truncated: showed the first ${file.bytes.length} of ${file.size} bytes]`,
      );
    }),
);

/** Lists names only: a hard-linked file is shown like any other, since listing opens nothing. */
export const listDirectoryImplementation = implementTool(
  listDirectoryTool,
  { idempotent: true },
  ({ path: requested }, context) =>
    inWorkspace(context, requested, "read", async (path) => {
      if (!(await stat(path)).isDirectory()) {
        return failure(`'${requested}' is a file, not a directory; use read_file to read it`);
      }
      const entries = (await readdir(path, { withFileTypes: true }))
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort(byCodeUnits);
      if (entries.length === 0) return success(`'${requested}' is empty`);
      const shown = entries.slice(0, LIST_CAP_ENTRIES).join("\n");
      const more = entries.length - LIST_CAP_ENTRIES;
      return success(more > 0 ? `${shown}\n[${more} more entries not shown]` : shown);
    }),
);

export { searchFilesImplementation };

export const writeFileImplementation = implementTool(
  writeFileTool,
  { idempotent: true },
  ({ path: requested, content }, context) =>
    inWorkspace(context, requested, "write", async (path) => {
      await mkdir(dirname(path), { recursive: true });
      await writeWhole(path, content);
      return success(`wrote ${Buffer.byteLength(content)} bytes to '${requested}'`);
    }),
);

export const editFileImplementation = implementTool(
  editFileTool,
  { idempotent: false },
  async ({ path: requested, old_str: old, new_str: replacement }, context) => {
    if (old === "") return failure("old_str is empty; quote the exact text to replace");
    return inWorkspace(context, requested, "write", async (path) => {
      const file = await readRegular(path, requested, Number.POSITIVE_INFINITY);
      if ("status" in file) return file;
      const text = file.bytes.toString("utf8");
      const first = text.indexOf(old);
      if (first === -1) return failure(`old_str does not occur in '${requested}'`);
      // Overlapping occurrences count too: either one could be the text the model meant.
      if (text.indexOf(old, first + 1) !== -1) {
        return failure(
          `old_str occurs more than once in '${requested}'; include more of the surrounding text`,
        );
      }
      await writeWhole(path, text.slice(0, first) + replacement + text.slice(first + old.length));
      const line = text.slice(0, first).split("\n").length;
      return success(`replaced the text at line ${line} of '${requested}'`);
    });
  },
);

/** The file tools, confined to the agent's workspace root. */
export const FILE_IMPLEMENTATIONS: ToolImplementation[] = [
  readFileImplementation,
  listDirectoryImplementation,
  searchFilesImplementation,
  writeFileImplementation,
  editFileImplementation,
];
