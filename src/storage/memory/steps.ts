import { ConflictError } from "../../core/errors.js";
import {
  applyStepUpdate,
  type StepFeedback,
  type StepRecord,
  type StepUpdate,
} from "../../records/step-record.js";
import type { PageQuery, StepFilter } from "../store.js";
import { copy, pageOf } from "./rows.js";

/** Step records in memory, in creation order (a Map keeps a key's place when it is set again). */
export class InMemorySteps {
  readonly #steps = new Map<string, StepRecord>();

  /** Refuses what `write` would refuse, before anything of a commit is applied. */
  check(steps: readonly StepRecord[]): void {
    for (const step of steps) {
      const old = this.#steps.get(step.id);
      if (old && old.agent_id !== step.agent_id) {
        throw new ConflictError(`step '${step.id}' is another agent's`);
      }
    }
  }

  /** Writes checked, copied records. */
  write(steps: readonly StepRecord[]): void {
    for (const step of steps) this.#steps.set(step.id, step);
  }

  /** Applies checked, copied updates to the agent's records. */
  update(agentId: string, updates: readonly StepUpdate[]): void {
    for (const update of updates) {
      const stored = this.#steps.get(update.id);
      if (stored?.agent_id === agentId) this.#steps.set(update.id, applyStepUpdate(stored, update));
    }
  }

  setFeedback(id: string, feedback: StepFeedback, tags: readonly string[] | null) {
    const stored = this.#steps.get(id);
    if (!stored) return null;
    const updated = { ...stored, feedback, ...(tags !== null && { tags: [...tags] }) };
    this.#steps.set(id, updated);
    return copy(updated);
  }

  get(id: string): StepRecord | null {
    const step = this.#steps.get(id);
    return step ? copy(step) : null;
  }

  /** `projectOf` gives an agent's project (undefined once deleted). */
  list(
    filter: StepFilter,
    page: PageQuery,
    projectOf: (agentId: string) => string | undefined,
  ): StepRecord[] {
    const mine = [...this.#steps.values()].filter(
      (step) =>
        projectOf(step.agent_id) === filter.projectId &&
        (filter.agentId === undefined || step.agent_id === filter.agentId) &&
        (filter.runId === undefined || step.run_id === filter.runId),
    );
    const { model, fromMs, toMs } = filter;
    const keep = (step: StepRecord) =>
      (model === undefined || step.model === model || step.model.endsWith(`/${model}`)) &&
      (fromMs === undefined || step.created_at_ms >= fromMs) &&
      (toMs === undefined || step.created_at_ms < toMs);
    return pageOf(mine, page, keep).map(copy);
  }

  deleteAgent(agentId: string): void {
    for (const [id, step] of this.#steps) if (step.agent_id === agentId) this.#steps.delete(id);
  }
}
