import { z } from "zod";
import { defineTool } from "../tool-declaration.js";
import { int, str, strList } from "./params.js";

export const sendMessageTool = defineTool({
  name: "send_message",
  description: "Sends a message to the user. The only way a memgpt-style agent replies.",
  parameters: z.object({ message: str("The message for the user.") }),
  risk: "read",
});

export const coreMemoryAppendTool = defineTool({
  name: "core_memory_append",
  description: "Appends text to a core memory block.",
  parameters: z.object({
    label: str("The block to append to, e.g. 'human' or 'persona'."),
    content: str("The text to append."),
  }),
  risk: "write",
  requires: "core_memory",
});

export const coreMemoryReplaceTool = defineTool({
  name: "core_memory_replace",
  description: "Replaces an exact piece of text in a core memory block.",
  parameters: z.object({
    label: str("The block to edit."),
    old_content: str("The exact text to replace."),
    new_content: str("The replacement text; empty to delete."),
  }),
  risk: "write",
  requires: "core_memory",
});

export const memoryInsertTool = defineTool({
  name: "memory_insert",
  description: "Inserts text into a core memory block at a line (the end by default).",
  parameters: z.object({
    label: str("The block to edit."),
    new_str: str("The text to insert."),
    insert_line: int("The line after which to insert; 0 inserts at the top.").optional(),
  }),
  risk: "write",
  requires: "core_memory",
});

export const memoryReplaceTool = defineTool({
  name: "memory_replace",
  description: "Replaces an exact piece of text in a core memory block.",
  parameters: z.object({
    label: str("The block to edit."),
    old_str: str("The exact text to replace; it must occur once."),
    new_str: str("The replacement text."),
  }),
  risk: "write",
  requires: "core_memory",
});

export const archivalMemoryInsertTool = defineTool({
  name: "archival_memory_insert",
  description: "Stores a passage in long-term archival memory.",
  parameters: z.object({
    content: str("The passage to store."),
    tags: strList("Tags to file it under.").optional(),
  }),
  risk: "write",
  requires: "archival_memory",
});

export const archivalMemorySearchTool = defineTool({
  name: "archival_memory_search",
  description: "Searches archival memory by meaning and by words.",
  parameters: z.object({
    query: str("What to look for."),
    tags: strList("Only passages with these tags.").optional(),
    tag_match_mode: z
      .enum(["any", "all"])
      .describe("With tags: passages with any of them, or with all of them (default).")
      .optional(),
    top_k: int("How many passages to return.", 1).optional(),
    start_datetime: str("Only passages created at or after this ISO 8601 time.").optional(),
    end_datetime: str("Only passages created at or before this ISO 8601 time.").optional(),
  }),
  risk: "read",
  requires: "archival_memory",
});

export const conversationSearchTool = defineTool({
  name: "conversation_search",
  description: "Searches earlier messages of the conversation, including evicted ones.",
  parameters: z.object({
    query: str("What to look for."),
    roles: strList("Only messages from these roles: user, assistant, tool.").optional(),
    limit: int("How many messages to return.", 1).optional(),
  }),
  risk: "read",
  requires: "conversation_search",
});

export const pauseHeartbeatsTool = defineTool({
  name: "pause_heartbeats",
  description: "Stops heartbeat wake-ups for a number of minutes; the agent sleeps until then.",
  parameters: z.object({
    minutes: int("How long to sleep, in minutes (at most a day).", 1).max(1440),
  }),
  risk: "read",
  requires: "heartbeat",
});

/** Letta's memory and messaging tools, under the names Letta's clients expect. */
export const LETTA_TOOLS = [
  sendMessageTool,
  coreMemoryAppendTool,
  coreMemoryReplaceTool,
  memoryInsertTool,
  memoryReplaceTool,
  archivalMemoryInsertTool,
  archivalMemorySearchTool,
  conversationSearchTool,
  pauseHeartbeatsTool,
];
