import { checkConfig, type HoldfastConfig } from "../../src/config/config-file.js";
import type { RecordedRequest, ScriptedReply } from "../fake-openai-server.js";

/** A chat-completions message as the fake provider receives it. */
export interface WireMessage {
  role: string;
  content?: string | null | { type: string; text?: string }[];
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/** What a request to the fake provider says: who asks (by model and tools), and the last turn. */
export function read(request: RecordedRequest) {
  const messages = (request.body.messages ?? []) as WireMessage[];
  const tools = ((request.body.tools ?? []) as { function: { name: string } }[]).map(
    (tool) => tool.function.name,
  );
  const last = messages.at(-1);
  const text = (message: WireMessage | undefined) =>
    typeof message?.content === "string"
      ? message.content
      : (message?.content ?? []).map((part) => part.text ?? "").join("");
  const users = messages.filter((m) => m.role === "user").map(text);
  return {
    model: String(request.body.model),
    tools,
    lastRole: last?.role ?? "",
    lastText: text(last),
    task: users.at(-1) ?? "",
    toolResults: messages.filter((m) => m.role === "tool").map(text),
  };
}

let calls = 0;
/** A reply that calls `name` with `args`. */
export function callTool(name: string, args: Record<string, unknown>): ScriptedReply {
  calls += 1;
  return {
    type: "completion",
    toolCalls: [{ id: `call-${calls}`, name, arguments: JSON.stringify(args) }],
  };
}

/** A reply that spawns one sub-agent per task, all in one response. */
export function spawnAll(agentType: string, prompts: string[]): ScriptedReply {
  return {
    type: "completion",
    toolCalls: prompts.map((prompt) => {
      calls += 1;
      return {
        id: `call-${calls}`,
        name: "spawn_agent",
        arguments: JSON.stringify({ agent_type: agentType, prompt }),
      };
    }),
  };
}

export const say = (text: string, stallMs?: number): ScriptedReply => ({
  type: "completion",
  text,
  ...(stallMs === undefined ? {} : { stallMs }),
});

/** The fake provider's env for a test server: every `openai-compatible/*` model goes to it. */
export const providerEnv = (baseUrl: string) => ({
  OPENAI_COMPATIBLE_BASE_URL: baseUrl,
  OPENAI_COMPATIBLE_API_KEY: "k",
});

/** Built-in types plus `types` (and `chains`), or a test fails at once with the config's errors. */
export function configWith(
  types: Record<string, unknown>,
  chains: Record<string, unknown> = {},
): HoldfastConfig {
  const checked = checkConfig({ types, chains });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}
