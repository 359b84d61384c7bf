import { useState } from "preact/hooks";
import { get, getOptional } from "../api.js";
import { ErrorLine, useLoad } from "../load.js";
import type { Message, Run, Step } from "../types.js";
import { exchanges, type JournalEntry, newInputs } from "./journal.js";
import { MessageView } from "./message-view.js";
import { type ReplayOutcome, ReplayPanel } from "./replay.js";
import { ModelExchange, NotRecorded, StepFacts } from "./step-detail.js";
import { groups, NO_STEP } from "./timeline.js";

/** An agent's runs, newest first. */
export function RunsView({ agentId }: { agentId: string }) {
  const runs = useLoad(() => get<Run[]>(`/v1/runs/?agent_id=${agentId}&limit=100`), [agentId]);
  return (
    <div>
      <ErrorLine error={runs.error} />
      <table class="list" data-testid="runs">
        <thead>
          <tr>
            <th>run</th>
            <th>status</th>
            <th>stop reason</th>
            <th>steps</th>
            <th>tokens in / out</th>
            <th>duration</th>
            <th>started</th>
          </tr>
        </thead>
        <tbody>
          {(runs.data ?? []).map((run) => (
            <tr key={run.id}>
              <td>
                <a href={`#/agents/${agentId}/runs/${run.id}`}>{run.id}</a>
              </td>
              <td>{run.status}</td>
              <td>{run.stop_reason}</td>
              <td>{run.usage?.step_count}</td>
              <td>
                {run.usage?.prompt_tokens} / {run.usage?.completion_tokens}
              </td>
              <td>{ms(run.total_duration_ns)}</td>
              <td class="muted">{run.created_at.slice(0, 19).replace("T", " ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.data?.length === 0 && <p class="muted">No runs yet.</p>}
    </div>
  );
}

interface Timeline {
  run: Run;
  messages: Message[];
  /** Letta's step records, when this server has `/v1/runs/{id}/steps`. */
  steps: Step[] | null;
  /** Why the step records could not be read, when the route exists but failed. */
  stepsError: string | null;
  /** The run journal's entries (offers and responses); null without the route. */
  journal: JournalEntry[] | null;
}

/** An addition to the timeline, never a reason to lose it: null on 404, the error otherwise. */
const optional = <T,>(path: string) =>
  getOptional<T>(path).catch((e: unknown) => ({
    unavailable: e instanceof Error ? e.message : String(e),
  }));

async function loadTimeline(runId: string): Promise<Timeline> {
  const [run, messages, steps, journal] = await Promise.all([
    get<Run>(`/v1/runs/${runId}`),
    get<Message[]>(`/v1/runs/${runId}/messages?limit=1000&order=asc`),
    optional<Step[]>(`/v1/runs/${runId}/steps?limit=1000&order=asc`),
    optional<{ entries: JournalEntry[] }>(`/v1/runs/${runId}/journal`),
  ]);
  return {
    run,
    messages,
    steps: Array.isArray(steps) ? steps : null,
    stepsError: steps && !Array.isArray(steps) ? steps.unavailable : null,
    journal: journal && "entries" in journal ? journal.entries : null,
  };
}

/**
 * A run step by step: each step's model, tokens, durations and tool calls (from the step
 * records), its model request and response (from the run journal), and the messages it
 * produced; with a replay of the run against today's config.
 */
export function RunTimeline({ agentId, runId }: { agentId: string; runId: string }) {
  const timeline = useLoad(() => loadTimeline(runId), [runId]);
  const [replay, setReplay] = useState<ReplayOutcome | null>(null);
  const data = timeline.data;
  const byStep = data?.journal ? exchanges(data.journal) : null;
  const inputs = data ? newInputs(data.messages) : null;
  return (
    <div data-testid="timeline">
      <p>
        <a href={`#/agents/${agentId}/runs`}>← runs</a>
      </p>
      <ErrorLine error={timeline.error} />
      {data && (
        <>
          <div class="card">
            <strong>{data.run.id}</strong> · {data.run.status} · stop: {data.run.stop_reason} ·{" "}
            {data.run.usage?.step_count} steps · {data.run.usage?.prompt_tokens} tokens in /{" "}
            {data.run.usage?.completion_tokens} out · {ms(data.run.total_duration_ns)} ·{" "}
            {(data.run.models ?? []).join(", ")}
          </div>
          <ReplayPanel runId={runId} onOutcome={setReplay} />
          <NotRecorded />
          {groups(data).map((group) => (
            <div
              class={`card ${group.step || group.id !== NO_STEP ? "step" : "input"} ${
                replay && !replay.matches && replay.step_id === group.id ? "diverged" : ""
              }`}
              key={group.id}
              data-step={group.id}
            >
              <div class="row">
                <strong>{group.id === NO_STEP ? "input" : `step ${group.index}`}</strong>
                {group.id !== NO_STEP && <span class="muted small">{group.id}</span>}
              </div>
              {group.step ? <StepFacts step={group.step} /> : null}
              {group.id !== NO_STEP && byStep && (
                <ModelExchange exchange={byStep.get(group.id)} inputs={inputs?.get(group.id)} />
              )}
              {group.messages.map((m) => (
                <MessageView key={`${m.id}:${m.message_type}`} message={m} />
              ))}
            </div>
          ))}
          {data.stepsError && (
            <p class="muted small">The step records could not be read: {data.stepsError}</p>
          )}
          {data.steps === null && !data.stepsError && (
            <p class="muted small">
              This server keeps no step records (no /v1/runs/{"{id}"}/steps): the run's messages are
              shown by step.
            </p>
          )}
        </>
      )}
    </div>
  );
}

function ms(ns: number | null | undefined): string {
  return ns == null ? "" : `${Math.round(ns / 1e6)} ms`;
}
