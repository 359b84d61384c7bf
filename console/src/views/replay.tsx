import { useState } from "preact/hooks";
import { post } from "../api.js";
import { ErrorLine } from "../load.js";

/** What `POST /v1/runs/{id}/replay` answers. */
export interface ReplayOutcome {
  matches: boolean;
  steps?: number;
  complete?: boolean;
  step?: number;
  step_id?: string | null;
  expected?: string;
  actual?: string;
  reason?: string;
  agent_type: string;
}

/**
 * Replays the run against today's agent type, tool rules and limits (no model call, no tool
 * run) and says whether it matches or where it first decides differently.
 */
export function ReplayPanel({
  runId,
  onOutcome,
}: {
  runId: string;
  onOutcome: (outcome: ReplayOutcome | null) => void;
}) {
  const [outcome, setOutcome] = useState<ReplayOutcome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function replay() {
    setBusy(true);
    setError(null);
    try {
      const answer = await post<ReplayOutcome>(`/v1/runs/${runId}/replay`, {});
      setOutcome(answer);
      onOutcome(answer);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div class="card" data-testid="replay">
      <div class="row">
        <button type="button" disabled={busy} onClick={() => void replay()}>
          Replay
        </button>
        <span class="muted small">
          re-decides this run with today's type, tool rules and limits over its recorded model
          responses and tool results; no model is called
        </span>
      </div>
      <ErrorLine error={error} />
      {outcome?.matches && (
        <p data-testid="replay-outcome">
          ✓ matches: {outcome.steps} decisions
          {outcome.complete ? "" : " (the run had not ended: matches so far)"}
        </p>
      )}
      {outcome && !outcome.matches && (
        <div data-testid="replay-outcome" class="diverged">
          <p>
            ✗ diverges at decision {outcome.step}
            {outcome.step_id ? ` (step ${outcome.step_id})` : ""}
          </p>
          <p>expected: {outcome.expected}</p>
          <p>actual: {outcome.actual}</p>
          <p>reason: {outcome.reason}</p>
        </div>
      )}
    </div>
  );
}
