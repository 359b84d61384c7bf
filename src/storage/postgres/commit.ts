import type pg from "pg";
import type { StepCommit } from "../turn-store.js";
import { mergeEdits } from "./blocks.js";
import { appendJournal, rememberCommitted } from "./history.js";
import { inTransaction } from "./pool.js";
import { storageError } from "./rows.js";
import { COMMIT_STEP, commitStepParams } from "./step-statement.js";
import { updateSteps, writeSteps } from "./steps.js";

/**
 * Commits a validated step. The step itself is one statement (`COMMIT_STEP`); a step that also
 * carries step records, a run journal or memory changes to record in the memory history writes
 * them in the same transaction, after it.
 */
export async function commitStep(pool: pg.Pool, step: StepCommit): Promise<void> {
  const { agentId, state, memory, steps, stepUpdates, journal } = step;
  const remembers = memory.blocks.length > 0 || memory.passages.length > 0;
  const extra = remembers || (steps?.length ?? 0) > 0 || (stepUpdates?.length ?? 0) > 0;
  const journaled = journal !== undefined && journal.length > 0 && state.run_id !== null;
  if (!extra && !journaled) {
    try {
      await pool.query(COMMIT_STEP, commitStepParams(step));
    } catch (error) {
      throw storageError(error, agentId);
    }
    return;
  }
  await inTransaction(
    pool,
    async (tx) => {
      const blocks = memory.blocks.length > 0 ? await mergeEdits(tx, agentId, memory) : [];
      const merged = { ...memory, blocks };
      await tx.query(COMMIT_STEP, commitStepParams({ ...step, memory: merged }));
      if (remembers) await rememberCommitted(tx, agentId, merged);
      if (journal && state.run_id) await appendJournal(tx, agentId, state.run_id, journal);
      if (steps) await writeSteps(tx, steps);
      if (stepUpdates) await updateSteps(tx, agentId, stepUpdates);
    },
    agentId,
  );
}
