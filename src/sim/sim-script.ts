import { type Random, randomInt } from "../core/random.js";
import type { ModelRequest } from "../llm/model.js";
import type { SimReply, SimScript } from "../llm/sim/sim-model.js";
import { SCORING_PROMPT } from "../types/prompts.js";

/**
 * The simulated model's behaviour, drawn from its seeded stream: memory writes (sometimes past a
 * block's limit), external lookups, forbidden tool calls, pauses, and replies. It only ever
 * offers what a real model could: calls to tools it may or may not have been given.
 */
export function simScript(random: Random): SimScript {
  return (request: ModelRequest) => {
    const offered = new Set(request.tools.map((tool) => tool.name));
    const heartbeat = request.tools.some(
      (tool) => "request_heartbeat" in ((tool.parameters.properties as object) ?? {}),
    );
    const call = (name: string, args: Record<string, unknown>, again: boolean): SimReply => ({
      toolCalls: [{ name, args: heartbeat ? { ...args, request_heartbeat: again } : args }],
    });
    const reply = (text: string): SimReply =>
      offered.has("send_message") ? call("send_message", { message: text }, false) : { text };
    const last = request.messages.at(-1);
    const roll = random.next();
    if (offered.has("spawn_agent")) return orchestrate(random, roll, last?.role === "tool");
    if (request.system.includes(SCORING_PROMPT)) return score(random, roll);
    if (last?.role === "tool")
      return roll < 0.15 && offered.has("sim_lookup")
        ? call("sim_lookup", { key: "again" }, true)
        : reply(`done: ${last.content.slice(0, 40)}`);
    // The client's own tool, when a message offers it; sometimes called with the wrong argument.
    if (roll < 0.35 && offered.has("sim_client_lookup"))
      return call("sim_client_lookup", roll < 0.05 ? { id: 1 } : { key: `c${roll}` }, true);
    const size = roll < 0.1 ? 6000 : randomInt(random, 5, 60);
    const text = "x".repeat(size);
    if (roll < 0.3 && offered.has("core_memory_append"))
      return call("core_memory_append", { label: "human", content: text }, true);
    if (roll < 0.3 && offered.has("memory_insert"))
      return call("memory_insert", { label: "human", new_str: text }, true);
    if (roll < 0.45 && offered.has("sim_lookup"))
      return call("sim_lookup", { key: `k${randomInt(random, 1, 9)}` }, true);
    if (roll < 0.5) return call("shell", { command: "rm -rf /" }, true);
    if (roll < 0.55 && offered.has("archival_memory_insert"))
      return call("archival_memory_insert", { content: text }, true);
    if (roll < 0.6 && offered.has("pause_heartbeats"))
      return call("pause_heartbeats", { minutes: randomInt(random, 1, 30) }, false);
    if (roll < 0.65 && offered.has("read_file"))
      return call("read_file", { path: "notes.txt" }, true);
    return reply(`ok ${randomInt(random, 1, 1000)}`);
  };
}

const CHILD_TYPES = ["sim_agent", "sim_careful", "sim_boss"] as const;

/** An orchestrator: one to three sub-agents of random types in one response, then an answer. */
function orchestrate(random: Random, roll: number, heard: boolean): SimReply {
  if (heard) return { text: `combined ${randomInt(random, 1, 1000)}` };
  const count = roll < 0.5 ? 1 : randomInt(random, 2, 3);
  const toolCalls = Array.from({ length: count }, (_, i) => ({
    name: "spawn_agent",
    args: { agent_type: CHILD_TYPES[randomInt(random, 0, 2)] ?? "sim_agent", prompt: `part ${i}` },
  }));
  return { toolCalls };
}

/**
 * A scoring agent: mostly a `score: N` line or JSON, sometimes only in its reasoning, and now
 * and then an answer with no score at all (the chain must then fail, never read it as 0).
 */
function score(random: Random, roll: number): SimReply {
  const value = randomInt(random, 0, 100);
  if (roll < 0.55) return { text: `score: ${value}\nit answers the task` };
  if (roll < 0.75) return { text: `{"score": ${value}, "why": "it answers the task"}` };
  if (roll < 0.85) return { reasoning: `score: ${value}` };
  return { text: "a fine answer, I would say" };
}
