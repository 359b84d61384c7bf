import { z } from "zod";
import { defineTool } from "../tool-declaration.js";
import { int, str } from "./params.js";

/** Letta's file tools, offered to an agent once a folder is attached to it. */

export const openFilesTool = defineTool({
  name: "open_files",
  description:
    "Open one or more files and load their contents into files section in core memory. " +
    "Maximum of 5 files can be opened simultaneously; opening more closes the least recently " +
    "used. Use it to read files, view parts of large files, or replace the open set " +
    "(close_all_others).",
  parameters: z.object({
    file_requests: z
      .array(
        z.object({
          file_name: str("The file to open, as listed in <directories> (e.g. 'docs/guide.md')."),
          offset: int(
            "The first line to view, 0-indexed; from the beginning if not given.",
          ).optional(),
          length: int("How many lines to view from offset; to the end if not given.", 1).optional(),
        }),
      )
      .describe("The files to open, each with an optional view range."),
    close_all_others: z
      .boolean()
      .describe("true to close every other open file first (default false).")
      .optional(),
  }),
  risk: "read",
});

export const grepFilesTool = defineTool({
  name: "grep_files",
  description:
    "Searches the attached files' contents for a pattern (case-insensitive) and shows matches " +
    "with surrounding lines, 20 per call; call again with offset for more.",
  parameters: z.object({
    pattern: str(
      "Keyword or regular expression (RE2 syntax: no backreferences or lookaround) to look for.",
    ),
    include: str("Only files whose name matches this pattern, e.g. '*.md' or 'docs/'.").optional(),
    context_lines: int("Lines of context before and after each match (default 1).").optional(),
    offset: int("Matches to skip, for the next page (e.g. 20).").optional(),
  }),
  risk: "read",
});

export const semanticSearchFilesTool = defineTool({
  name: "semantic_search_files",
  description:
    "Searches the attached files for passages about a query and returns them with their file " +
    "names, best first.",
  parameters: z.object({
    query: str("What to look for."),
    limit: int("How many passages to return (default 5, at most 50).", 1).optional(),
  }),
  risk: "read",
});

/** The tools of the `files` pack. */
export const FOLDER_TOOLS = [openFilesTool, grepFilesTool, semanticSearchFilesTool];

/** Their names, in the order Letta lists `FILES_TOOLS`. */
export const FOLDER_TOOL_NAMES = FOLDER_TOOLS.map((tool) => tool.name);
