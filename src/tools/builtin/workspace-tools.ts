import { z } from "zod";
import { defineTool } from "../tool-declaration.js";
import { int, str } from "./params.js";

/** Tools that act on the agent's workspace, the web, and other agents. */
export const WORKSPACE_TOOLS = [
  defineTool({
    name: "shell",
    description: "Runs a shell command in the agent's workspace and returns its output.",
    parameters: z.object({
      command: str("The command line."),
      timeout_ms: int("Kill it after this long.", 1).optional(),
    }),
    risk: "exec",
  }),
  defineTool({
    name: "read_file",
    description: "Reads a text file in the workspace.",
    parameters: z.object({ path: str("Path relative to the workspace root.") }),
    risk: "read",
  }),
  defineTool({
    name: "list_directory",
    description: "Lists the entries of a directory in the workspace.",
    parameters: z.object({ path: str("Path relative to the workspace root.") }),
    risk: "read",
  }),
  defineTool({
    name: "search_files",
    description: "Finds lines matching a pattern in the workspace's files.",
    parameters: z.object({
      pattern: str("A regular expression."),
      path: str("Where to search; the root by default.").optional(),
    }),
    risk: "read",
  }),
  defineTool({
    name: "write_file",
    description: "Creates or overwrites a text file in the workspace.",
    parameters: z.object({
      path: str("Path relative to the workspace root."),
      content: str("The whole new content of the file."),
    }),
    risk: "write",
  }),
  defineTool({
    name: "edit_file",
    description: "Replaces an exact piece of text in a workspace file.",
    parameters: z.object({
      path: str("Path relative to the workspace root."),
      old_str: str("The exact text to replace; it must occur once."),
      new_str: str("The replacement text."),
    }),
    risk: "write",
  }),
  defineTool({
    name: "web_search",
    description: "Searches the web and returns titles, links and snippets.",
    parameters: z.object({ query: str("What to search for.") }),
    risk: "read",
  }),
  defineTool({
    name: "web_fetch",
    description: "Fetches a web page with GET and returns its text.",
    parameters: z.object({ url: str("An http or https URL.") }),
    risk: "read",
  }),
  defineTool({
    name: "http_request",
    description: "Sends an HTTP request with any method and body to an external service.",
    parameters: z.object({
      method: str("GET, POST, PUT, PATCH or DELETE."),
      url: str("The URL to call."),
      body: str("The request body.").optional(),
    }),
    risk: "network",
  }),
  defineTool({
    name: "spawn_agent",
    description: "Starts a sub-agent of a registered type on a task and returns its answer.",
    parameters: z.object({
      agent_type: str("The name of a registered agent type."),
      prompt: str("The task for the sub-agent."),
    }),
    risk: "exec",
  }),
  defineTool({
    name: "list_agent_types",
    description: "Lists the agent types a sub-agent can be spawned as.",
    parameters: z.object({}),
    risk: "read",
  }),
];
