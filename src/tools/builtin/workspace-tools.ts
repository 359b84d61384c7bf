import { z } from "zod";
import { defineTool } from "../tool-declaration.js";
import { int, str } from "./params.js";

const relativePath = (what: string) =>
  str(`${what}, relative to the workspace root (e.g. 'src/main.py'; '.' is the root).`);

export const shellTool = defineTool({
  name: "shell",
  description:
    "Runs a command with /bin/sh in the workspace root and returns its exit code and combined " +
    "output (cut to 32 KiB). The environment is minimal: no secrets, HOME is the workspace. " +
    "In the sandbox the workspace is /workspace, the only writable place, and there is no " +
    "network unless the agent's type allows it.",
  parameters: z.object({
    command: str("The command line."),
    timeout_ms: int(
      "Kill it after this many milliseconds (default 30000, at most 120000).",
      1,
    ).optional(),
  }),
  risk: "exec",
});

export const readFileTool = defineTool({
  name: "read_file",
  description: "Reads a text file in the workspace (the first 64 KiB of it).",
  parameters: z.object({ path: relativePath("The file") }),
  risk: "read",
});

export const listDirectoryTool = defineTool({
  name: "list_directory",
  description: "Lists the entries of a directory in the workspace; directories end with '/'.",
  parameters: z.object({ path: relativePath("The directory") }),
  risk: "read",
});

export const searchFilesTool = defineTool({
  name: "search_files",
  description:
    "Finds lines matching a regular expression in the workspace's text files and returns them " +
    "as 'path:line: text'. Skips binary and large files, node_modules and .git.",
  parameters: z.object({
    pattern: str(
      "A regular expression in RE2 syntax (JavaScript-like, but no backreferences or lookaround), e.g. 'def \\w+\\('.",
    ),
    path: relativePath("The file or directory to search; the root by default").optional(),
  }),
  risk: "read",
});

export const writeFileTool = defineTool({
  name: "write_file",
  description: "Creates or overwrites a text file in the workspace, creating its directories.",
  parameters: z.object({
    path: relativePath("The file"),
    content: str("The whole new content of the file."),
  }),
  risk: "write",
});

export const editFileTool = defineTool({
  name: "edit_file",
  description: "Replaces an exact piece of text in a workspace file.",
  parameters: z.object({
    path: relativePath("The file"),
    old_str: str("The exact text to replace; it must occur exactly once in the file."),
    new_str: str("The replacement text; empty to delete."),
  }),
  risk: "write",
});

export const webSearchTool = defineTool({
  name: "web_search",
  description:
    "Searches the web with the server's search provider and returns a numbered list of " +
    "results: title, URL and snippet. Read a result in full with web_fetch.",
  parameters: z.object({ query: str("What to search for.") }),
  risk: "read",
});

export const webFetchTool = defineTool({
  name: "web_fetch",
  description:
    "Fetches a URL with GET and returns its content as text: HTML pages as markdown (links " +
    "made absolute), other text as it is; binary files are refused. Follows a few redirects; " +
    "large pages are cut. Private and loopback addresses are refused unless the server allows them.",
  parameters: z.object({ url: str("An absolute http or https URL.") }),
  risk: "read",
});

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export const httpRequestTool = defineTool({
  name: "http_request",
  description:
    "Sends an HTTP request to an external service and returns the status, headers and body " +
    "(text; binary bodies are summarised). Any status is a result, not an error. Private and " +
    "loopback addresses are refused unless the server allows them.",
  parameters: z.object({
    method: z.enum(HTTP_METHODS).describe("The HTTP method."),
    url: str("An absolute http or https URL."),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Request headers, e.g. {"content-type": "application/json"}.'),
    body: str("The request body (not for GET or HEAD).").optional(),
  }),
  risk: "network",
});

export const spawnAgentTool = defineTool({
  name: "spawn_agent",
  description: "Starts a sub-agent of a registered type on a task and returns its answer.",
  parameters: z.object({
    agent_type: str("The name of a registered agent type."),
    prompt: str("The task for the sub-agent."),
  }),
  risk: "exec",
});

export const listAgentTypesTool = defineTool({
  name: "list_agent_types",
  description: "Lists the agent types a sub-agent can be spawned as.",
  parameters: z.object({}),
  risk: "read",
});

/** Tools that act on the agent's workspace, the web, and other agents. */
export const WORKSPACE_TOOLS = [
  shellTool,
  readFileTool,
  listDirectoryTool,
  searchFilesTool,
  writeFileTool,
  editFileTool,
  webSearchTool,
  webFetchTool,
  httpRequestTool,
  spawnAgentTool,
  listAgentTypesTool,
];
