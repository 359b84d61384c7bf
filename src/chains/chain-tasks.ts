import type { ChainAgentSpec, ChainStage } from "../config/chain-definition.js";
import { renderTemplate, type TemplateValues } from "../config/chain-template.js";
import type { ChainAgentRun, ChainRunRecord } from "../records/chain-run.js";

/** What a stage's templates read: the input, the stage before's output, earlier outputs. */
export function templateValues(run: ChainRunRecord, stageIndex: number): TemplateValues {
  const done = run.stages.slice(0, stageIndex);
  return {
    input: run.input,
    previous: done.at(-1)?.output ?? "",
    stages: new Map(done.map((stage) => [stage.name, stage.output ?? ""])),
  };
}

/** The task a stage agent (or scorer) gets: its template, or its role's default. */
export function agentTask(spec: ChainAgentSpec, run: ChainRunRecord, stageIndex: number): string {
  const values = templateValues(run, stageIndex);
  if (spec.task) return renderTemplate(spec.task, values);
  const before = run.stages[stageIndex - 1];
  if (spec.role === "scoring") {
    return `Task: ${values.input}\n\nAnswer to score:\n${values.previous}`;
  }
  if (!before) return values.input;
  return `${values.input}\n\nWhat the stage '${before.name}' found:\n${values.previous}`;
}

/** The synthesis agent's task: its template (or a default) followed by every output. */
export function synthesisTask(
  spec: ChainAgentSpec,
  run: ChainRunRecord,
  stageIndex: number,
  agents: readonly ChainAgentRun[],
): string {
  const values = templateValues(run, stageIndex);
  const intro = spec.task
    ? renderTemplate(spec.task, values)
    : `Combine the results below into one answer to the task.\n\nTask: ${values.input}`;
  return `${intro}\n\n${sections(agents)}`;
}

/** A stage's output: its synthesis's, else its one agent's, else every agent's in sections. */
export function stageOutput(
  stage: ChainStage,
  agents: readonly ChainAgentRun[],
  synthesis: ChainAgentRun | null,
): string {
  if (stage.synthesis && synthesis?.output != null) return synthesis.output;
  const done = agents.filter((agent) => agent.status === "completed");
  if (done.length === 1) return done[0]?.output ?? "";
  return sections(done);
}

function sections(agents: readonly ChainAgentRun[]): string {
  return agents
    .filter((agent) => agent.status === "completed")
    .map((agent) => `## ${agent.name} (${agent.agent_type})\n${agent.output ?? ""}`)
    .join("\n\n");
}
