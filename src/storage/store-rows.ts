import type { z } from "zod";
import { HoldfastError, ValidationError } from "../core/errors.js";
import { isExactly } from "../core/exact-check.js";
import { fieldErrorsFromZod } from "../core/field-errors.js";
import { safeParseTiered } from "../core/tiered-parse.js";
import { AgentRecord, RunRecord } from "../records/agent-record.js";
import { CoreBlock, Passage } from "../records/memory-records.js";
import { AgentMessage } from "../records/messages.js";
import { JournalEntry } from "../records/run-journal.js";
import { SessionState } from "../records/session-state.js";
import { StepRecord, StepUpdate } from "../records/step-record.js";
import type { NewAgent, RunFilter } from "./store.js";
import type { StepCommit } from "./turn-store.js";

/**
 * Validation shared by every Store: what goes in is checked before anything is written (so a
 * bad row never leaves half a commit behind), and what comes out of a database is checked again.
 */

/** A stored row that no longer parses: the database was changed behind Holdfast's back. */
export class CorruptRowError extends HoldfastError {
  readonly code = "CORRUPT_ROW";
  readonly retryable = false;
}

/** Parses input to a store, or throws a ValidationError naming the field paths at fault. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  at: readonly PropertyKey[],
): z.output<S> {
  const result = safeParseTiered(schema, value);
  if (!result.success) {
    const errors = fieldErrorsFromZod(result.error, at);
    throw new ValidationError(`invalid ${at.map(String).join(".")}`, errors);
  }
  return result.data;
}

/**
 * `parseInput` for the records of a step, which the store writes and lets go of at once: a
 * value that already is what the parse would return is used as it is (`core/exact-check.ts`)
 * rather than copied.
 */
function parseStepInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  at: readonly PropertyKey[],
): z.output<S> {
  return isExactly(schema, value) ? (value as z.output<S>) : parseInput(schema, value, at);
}

/** Parses a stored JSON row, or throws a CorruptRowError. */
export function decodeRow<S extends z.ZodType>(schema: S, json: string, what: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (cause) {
    throw new CorruptRowError(`stored ${what} is not JSON`, { cause });
  }
  return checkRow(schema, value, what);
}

/** Checks a value read from a database against its schema, or throws a CorruptRowError. */
export function checkRow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  // A row just parsed from JSON is nobody else's: when it is exactly valid, it is the result.
  if (isExactly(schema, value)) return value as z.output<S>;
  const result = safeParseTiered(schema, value);
  if (!result.success) {
    throw new CorruptRowError(`stored ${what} is invalid: ${result.error.message}`, {
      cause: result.error,
    });
  }
  return result.data;
}

function rejectDuplicates(keys: readonly string[], what: string, at: string): void {
  const seen = new Set<string>();
  keys.forEach((key, index) => {
    if (seen.has(key)) {
      throw new ValidationError(`duplicate ${what} '${key}'`, [
        { path: `${at}.${index}`, message: `duplicate ${what} '${key}'` },
      ]);
    }
    seen.add(key);
  });
}

/** A new agent, validated: its record, and blocks with distinct labels. */
export function validateNewAgent(created: NewAgent): NewAgent {
  const agent = parseInput(AgentRecord, created.agent, ["agent"]);
  const blocks = created.blocks.map((block, i) => parseInput(CoreBlock, block, ["blocks", i]));
  rejectDuplicates(
    blocks.map((block) => block.label),
    "block label",
    "blocks",
  );
  const messages = (created.messages ?? []).map((m, i) =>
    parseInput(AgentMessage, m, ["messages", i]),
  );
  rejectDuplicates(
    messages.map((m) => m.id),
    "message id",
    "messages",
  );
  return { agent, blocks, messages };
}

/**
 * A step, validated as a whole before any of it is written: every message, block, passage,
 * the session and the run; message and passage ids distinct; the run the step's agent's.
 */
export function validateStep(step: StepCommit): StepCommit {
  const messages = step.messages.map((m, i) => parseStepInput(AgentMessage, m, ["messages", i]));
  const blocks = step.memory.blocks.map((b, i) =>
    parseStepInput(CoreBlock, b, ["memory", "blocks", i]),
  );
  const passages = step.memory.passages.map((p, i) =>
    parseStepInput(Passage, p, ["memory", "passages", i]),
  );
  const state = parseStepInput(SessionState, step.state, ["state"]);
  rejectDuplicates(
    messages.map((message) => message.id),
    "message id",
    "messages",
  );
  rejectDuplicates(
    passages.map((passage) => passage.id),
    "passage id",
    "memory.passages",
  );
  const validated: StepCommit = {
    agentId: step.agentId,
    state,
    messages,
    memory: { blocks, passages, ...(step.memory.bases ? { bases: step.memory.bases } : {}) },
  };
  if (step.run !== undefined) {
    const run = parseStepInput(RunRecord, step.run, ["run"]);
    if (run.agent_id !== step.agentId) {
      throw new ValidationError("the run belongs to another agent", [
        { path: "run.agent_id", message: `expected '${step.agentId}', got '${run.agent_id}'` },
      ]);
    }
    validated.run = run;
  }
  if (step.steps !== undefined) validated.steps = validateStepRecords(step.agentId, step.steps);
  if (step.stepUpdates !== undefined) {
    validated.stepUpdates = step.stepUpdates.map((update, i) =>
      parseStepInput(StepUpdate, update, ["stepUpdates", i]),
    );
  }
  if (step.journal !== undefined) {
    validated.journal = step.journal.map((e, i) => parseStepInput(JournalEntry, e, ["journal", i]));
  }
  return validated;
}

/** A commit's step records: each valid, each the committing agent's, ids distinct. */
function validateStepRecords(agentId: string, steps: readonly StepRecord[]): StepRecord[] {
  const parsed = steps.map((record, i) => parseStepInput(StepRecord, record, ["steps", i]));
  parsed.forEach((record, i) => {
    if (record.agent_id !== agentId) {
      throw new ValidationError("the step belongs to another agent", [
        { path: `steps.${i}.agent_id`, message: `expected '${agentId}', got '${record.agent_id}'` },
      ]);
    }
  });
  rejectDuplicates(
    parsed.map((record) => record.id),
    "step id",
    "steps",
  );
  return parsed;
}

/** The statuses a run filter keeps, or null for all: `active` and `statuses` both apply. */
export function runStatuses(filter: RunFilter): string[] | null {
  const ALL: string[] = RunRecord.shape.status.options;
  let keep: string[] | null = filter.statuses ? [...filter.statuses] : null;
  if (filter.active !== undefined) {
    const wanted = filter.active ? ["running"] : ALL.filter((s) => s !== "running");
    keep = (keep ?? ALL).filter((status) => wanted.includes(status));
  }
  return keep;
}

/** A list filter's words, lowercase and without blanks; null when it keeps every passage. */
export function wordsOf(filter: { containing?: readonly string[] }): string[] | null {
  const words = (filter.containing ?? []).map((word) => word.toLowerCase()).filter(Boolean);
  return words.length > 0 ? words : null;
}
