import type { ModelMessage, ModelRequest } from "../model.js";
import type { SimReply } from "./sim-model.js";

/**
 * The `sim` model's demo behaviour, which needs no key: it stores facts the user tells it in
 * memory, answers questions from its memory blocks, searches when asked, runs `run: CMD` in a
 * shell, and otherwise acknowledges. It reads only the request, so it is deterministic.
 */
export function demoReply(request: ModelRequest): SimReply {
  const last = request.messages.at(-1);
  const offered = new Set(request.tools.map((tool) => tool.name));
  const heartbeat = request.tools.some((tool) => hasProperty(tool.parameters, "request_heartbeat"));
  const call = (name: string, args: Record<string, unknown>, again: boolean): SimReply => ({
    toolCalls: [{ name, args: heartbeat ? { ...args, request_heartbeat: again } : args }],
  });
  const reply = (text: string): SimReply =>
    offered.has("send_message") ? call("send_message", { message: text }, false) : { text };

  if (!last || last.role === "tool") return reply(afterTools(request.messages));
  if (last.role !== "user") return reply("I am here.");
  const said = last.content.trim();

  const fact = /^(?:remember(?: that)?|my name is|i like|i am|i'm)\s+(.+)$/i.exec(said);
  if (fact) {
    const note = /^remember/i.test(said) ? (fact[1] ?? said) : said;
    if (offered.has("core_memory_append"))
      return call("core_memory_append", { label: "human", content: note }, true);
    if (offered.has("memory_insert"))
      return call("memory_insert", { label: "human", new_str: note }, true);
  }
  const command = /^run:\s*(.+)$/i.exec(said);
  if (command && offered.has("shell")) return call("shell", { command: command[1] }, true);
  const search = /^(?:search|recall)\s+(.+)$/i.exec(said);
  if (search && offered.has("conversation_search")) {
    return call("conversation_search", { query: search[1] }, true);
  }
  if (/\?$/.test(said)) {
    const known = blockValue(request.system, "human");
    return reply(
      known ? `From my memory of you: ${known.replace(/\n/g, "; ")}` : "I don't know yet.",
    );
  }
  return reply(`You said: ${said}`);
}

/** The reply after tool results, from the last one: deterministic and readable. */
function afterTools(messages: readonly ModelMessage[]): string {
  const last = messages.at(-1);
  if (last?.role !== "tool") return "Done.";
  switch (last.toolName) {
    case "core_memory_append":
    case "memory_insert":
      return "Noted. I will remember that.";
    case "conversation_search":
    case "archival_memory_search":
      return `I found: ${last.content}`;
    case "shell":
      return `The command printed: ${last.content}`;
    default:
      return `Done: ${last.content}`;
  }
}

function blockValue(system: string, label: string): string | undefined {
  const match = new RegExp(`<${label}>[\\s\\S]*?<value>\\n([\\s\\S]*?)\\n</value>`).exec(system);
  return match?.[1]?.trim() || undefined;
}

function hasProperty(schema: Record<string, unknown>, name: string): boolean {
  const properties = schema.properties;
  return typeof properties === "object" && properties !== null && name in properties;
}
