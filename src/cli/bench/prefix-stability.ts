import { builtinConfig } from "../../config/config-file.js";
import { createModel } from "../../llm/create-model.js";
import { createInMemoryStore } from "../../storage/memory/in-memory-store.js";
import { benchRuntime } from "./bench-setup.js";
import { type RecordedReply, startRecordingProvider } from "./recording-provider.js";

export interface PrefixStability {
  turns: number;
  /** Model calls made (a turn with a tool call makes two). */
  calls: number;
  /**
   * Of all input after the first call, the share that repeats the previous call's request
   * from its start: the part a provider's prefix cache can serve. Measured on the serialised
   * requests, in characters (tokens are about a quarter of them, the ratio is the same).
   */
  prefixShare: number;
  /** The lowest share of any one call. */
  minCallShare: number;
  /** Calls whose request did not hold the whole previous request as its prefix. */
  callsBreakingPrefix: number;
}

/**
 * The prefix stability of a conversation with unchanged memory: a `letta_v1_agent` (core memory
 * blocks, memory tools, plus a read-only `lookup`) on `anthropic/…`, talking to a local server
 * that records each request body the adapter sends. Every other turn the model looks something
 * up first, so tool calls and results are in the history too.
 */
export async function prefixStability(turns: number): Promise<PrefixStability> {
  const provider = await startRecordingProvider(replyFor);
  const store = createInMemoryStore();
  const letta = builtinConfig().registry.get("letta_v1_agent");
  if (!letta) throw new Error("letta_v1_agent missing");
  const type = {
    ...letta,
    name: "prefix_bench",
    tools: { ...letta.tools, include: [...letta.tools.include, "lookup"] },
  };
  const env = { ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: provider.baseUrl };
  const model = createModel("anthropic/claude-sonnet-4-5", { env, retry: { maxAttempts: 1 } });
  const { runtime, createAgents } = benchRuntime(store, { types: [type], model });
  try {
    const [agent = ""] = await createAgents(1, "prefix_bench");
    for (let turn = 0; turn < turns; turn += 1) {
      const outcome = await runtime.send(agent, { content: `Question ${turn}: what is k${turn}?` });
      if (outcome.stopReason !== "end_turn") throw new Error(`turn ${turn}: ${outcome.stopReason}`);
    }
    return { turns, ...measure(provider.bodies) };
  } finally {
    await runtime.shutdown();
    await provider.close();
  }
}

/** Even turns look up first; every other answer is text. */
function replyFor(body: Record<string, unknown>, call: number): RecordedReply {
  const messages = body.messages as { content: { type: string; text?: string }[] }[];
  const last = messages.at(-1)?.content.at(-1);
  const question = last?.type === "text" ? /^Question (\d+)/.exec(last.text ?? "") : null;
  if (question && Number(question[1]) % 2 === 0) {
    return { tool: "lookup", input: { key: `k${question[1]}` } };
  }
  return { text: `Answer ${call}: noted.` };
}

/** The prefix figures over consecutive request bodies. */
export function measure(bodies: readonly Record<string, unknown>[]) {
  const prompts = bodies.map(linearize);
  let shared = 0;
  let total = 0;
  let minCallShare = 1;
  let callsBreakingPrefix = 0;
  for (let i = 1; i < prompts.length; i += 1) {
    const before = prompts[i - 1] as string;
    const now = prompts[i] as string;
    const common = commonPrefix(before, now);
    shared += common;
    total += now.length;
    minCallShare = Math.min(minCallShare, common / now.length);
    if (common < before.length) callsBreakingPrefix += 1;
  }
  return {
    calls: bodies.length,
    prefixShare: total === 0 ? 1 : shared / total,
    minCallShare,
    callsBreakingPrefix,
  };
}

/**
 * A request as the provider reads it, in prompt order: tools, system, then messages. Cache
 * breakpoints are left out: they mark where to cache and are no part of the prompt, and the
 * newest message's one moves on with every call by design.
 */
export function linearize(body: Record<string, unknown>): string {
  const strip = (value: unknown) =>
    JSON.stringify(value ?? null, (key, inner) => (key === "cache_control" ? undefined : inner));
  const messages = (body.messages as unknown[] | undefined) ?? [];
  return [strip(body.tools), strip(body.system), ...messages.map(strip)].join("\n");
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  return i;
}
