import { z } from "zod";
import type { StreamChunk } from "./http-client.js";

const AgentSlot = z.looseObject({
  name: z.string(),
  role: z.string(),
  agent_type: z.string(),
  status: z.string(),
  output: z.string().nullable(),
  output_source: z.string().nullable(),
  error: z.string().nullable(),
});
const StageRun = z.looseObject({
  name: z.string(),
  status: z.string(),
  output: z.string().nullable(),
  error: z.string().nullable(),
  agents: z.array(AgentSlot),
  synthesis: AgentSlot.nullable(),
});
const Approval = z.looseObject({
  stage: z.string(),
  agent_name: z.string(),
  tool_call: z.looseObject({ name: z.string(), arguments: z.string(), tool_call_id: z.string() }),
});
const Score = z.looseObject({
  value: z.number().nullable(),
  min_score: z.number().nullable(),
  passed: z.boolean(),
});
export const ChainRunView = z.looseObject({
  id: z.string(),
  chain: z.string(),
  status: z.string(),
  stages: z.array(StageRun),
  pending_approvals: z.array(Approval),
  score: Score.nullable(),
  error: z.looseObject({ stage: z.string().nullable(), message: z.string() }).nullable(),
  usage: z.looseObject({
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    step_count: z.number(),
  }),
  created_at_ms: z.number(),
  completed_at_ms: z.number().nullable(),
});
export type ChainRunView = z.infer<typeof ChainRunView>;
type AgentSlot = z.infer<typeof AgentSlot>;

const FINISHED = ["completed", "failed", "cancelled"];

/**
 * What a `holdfast chains` command knows of a run as its stream goes by: the run's state, the
 * latest text each agent produced, and for each change a line saying what changed (what is
 * printed when the output is not a terminal).
 */
export class ChainProgress {
  run: ChainRunView | null = null;
  /** The latest text each agent streamed, by `stage/name`. */
  readonly said = new Map<string, string>();

  /** Takes one chunk; returns the plain lines that describe what it changed. */
  apply(chunk: StreamChunk): string[] {
    const data = chunk as Record<string, unknown>;
    switch (chunk.message_type) {
      case "chain_run": {
        const first = this.run === null;
        const run = ChainRunView.parse(data);
        this.run = run;
        if (!first) return [];
        const started = run.stages.filter((s) => s.status !== "pending");
        return [
          `run ${run.id} of chain '${run.chain}': ${run.status}`,
          ...started.map((stage) => `${stage.name}: ${stage.status}`),
        ];
      }
      case "chain_run_status":
        return this.#runStatus(data);
      case "chain_stage":
        return this.#stage(data);
      case "chain_agent":
        return this.#agent(data);
      case "assistant_message":
      case "reasoning_message": {
        const text = String(data.content ?? data.reasoning ?? "");
        const key = `${data.stage}/${data.agent_name}`;
        // Token deltas repeat their message's id: the text grows.
        const id = String(data.id ?? "");
        const previous = this.said.get(`${key}#id`) === id ? (this.said.get(key) ?? "") : "";
        this.said.set(`${key}#id`, id);
        this.said.set(key, previous + text);
        return [];
      }
      default:
        return [];
    }
  }

  get finished(): boolean {
    return this.run !== null && FINISHED.includes(this.run.status);
  }

  #runStatus(data: Record<string, unknown>): string[] {
    if (!this.run) return [];
    const before = this.run.status;
    const parsed = ChainRunView.pick({
      status: true,
      score: true,
      error: true,
      pending_approvals: true,
    }).parse(data);
    Object.assign(this.run, parsed);
    const lines =
      parsed.status !== before && !FINISHED.includes(parsed.status) ? [`run ${parsed.status}`] : [];
    for (const approval of parsed.pending_approvals) {
      const call = approval.tool_call;
      lines.push(
        `approval needed: ${approval.stage}/${approval.agent_name} wants ${call.name}(${clip(call.arguments, 120)})`,
        `  answer: holdfast chains approve ${this.run.id} ${call.tool_call_id} [--deny]`,
      );
    }
    return lines;
  }

  #stage(data: Record<string, unknown>): string[] {
    const stage = this.run?.stages.find((s) => s.name === data.stage);
    if (!stage) return [];
    const status = String(data.status);
    const changed = stage.status !== status;
    Object.assign(stage, { status, output: data.output ?? null, error: data.error ?? null });
    if (!changed) return [];
    return [`${stage.name}: ${status}${stage.error ? `: ${stage.error}` : ""}`];
  }

  #agent(data: Record<string, unknown>): string[] {
    const stage = this.run?.stages.find((s) => s.name === data.stage);
    if (!stage) return [];
    const agent = AgentSlot.parse(data);
    const slots = [...stage.agents, ...(stage.synthesis ? [stage.synthesis] : [])];
    const slot = slots.find((s) => s.name === agent.name);
    if (!slot || slot.status === agent.status) return [];
    Object.assign(slot, agent);
    return [`${stage.name}/${describeAgent(agent)}`];
  }
}

function describeAgent(agent: AgentSlot): string {
  const head = `${agent.name} [${agent.agent_type}]: ${agent.status}`;
  if (agent.status === "completed" && agent.output !== null) {
    const from = agent.output_source === "reasoning" ? " (from its reasoning)" : "";
    return `${head}${from}: ${clip(agent.output, 100)}`;
  }
  if (agent.status === "failed") return `${head}: ${agent.error ?? ""}`;
  return head;
}

/** The run's end, for a person: status, score, what it cost, and its answer. */
export function summary(run: ChainRunView): string[] {
  const seconds = ((run.completed_at_ms ?? Date.now()) - run.created_at_ms) / 1000;
  const tokens = run.usage.prompt_tokens + run.usage.completion_tokens;
  const parts = [`run ${run.status}`];
  if (run.score) {
    const min = run.score.min_score === null ? "" : ` (minimum ${run.score.min_score})`;
    parts.push(run.score.value === null ? "no score" : `score ${run.score.value}${min}`);
  }
  parts.push(`${run.usage.step_count} model calls, ${tokens} tokens, ${seconds.toFixed(1)} s`);
  const lines = [parts.join(" · ")];
  if (run.error)
    lines.push(`error${run.error.stage ? ` in ${run.error.stage}` : ""}: ${run.error.message}`);
  const answer = [...run.stages].reverse().find((s) => s.status === "completed" && !isScoring(s));
  if (answer?.output) lines.push("", answer.output);
  return lines;
}

const isScoring = (stage: { agents: AgentSlot[] }) =>
  stage.agents.some((a) => a.role === "scoring");

const SPIN = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const MARK: Record<string, string> = {
  completed: "✓",
  failed: "✗",
  cancelled: "⊘",
  skipped: "-",
  pending: "·",
  awaiting_approval: "?",
};

/** The live view in a terminal: every stage and agent with its state and latest words. */
export function renderProgress(progress: ChainProgress, tick: number, width: number): string[] {
  const run = progress.run;
  if (!run) return ["starting…"];
  const mark = (status: string) => MARK[status] ?? SPIN[tick % SPIN.length];
  const clipTo = (line: string) => (line.length > width ? `${line.slice(0, width - 1)}…` : line);
  const lines = [`${run.chain} · ${run.id} · ${run.status}`];
  for (const stage of run.stages) {
    lines.push(`${mark(stage.status)} ${stage.name}`);
    for (const agent of [...stage.agents, ...(stage.synthesis ? [stage.synthesis] : [])]) {
      const said = progress.said.get(`${stage.name}/${agent.name}`) ?? "";
      const detail = agent.status === "failed" ? (agent.error ?? "") : said.replace(/\s+/g, " ");
      lines.push(
        clipTo(`    ${mark(agent.status)} ${agent.name} [${agent.agent_type}] ${detail}`.trimEnd()),
      );
    }
  }
  for (const approval of run.pending_approvals) {
    lines.push(
      clipTo(
        `  approval needed: ${approval.stage}/${approval.agent_name} wants ${approval.tool_call.name}`,
      ),
    );
    lines.push(`    holdfast chains approve ${run.id} ${approval.tool_call.tool_call_id} [--deny]`);
  }
  return lines;
}

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
