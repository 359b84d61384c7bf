import { ConflictError } from "../core/errors.js";
import type { AgentRecord } from "./agent-record.js";

/**
 * A change to an agent's record, as data, so any engine can apply it between the agent's
 * turns. `expectUpdatedAtMs` makes it conditional: the caller computed it from the record as
 * of that time, and another change since is a conflict (the caller reads again and retries).
 * Its fields are the record's own; `context_after` resets the model's context (see AgentRecord).
 */
export type AgentChange = Partial<
  Pick<
    AgentRecord,
    "name" | "overrides" | "tool_rules" | "tags" | "metadata" | "description" | "context_after"
  >
> & { expectUpdatedAtMs?: number };

/** A conditional change found the record changed since its caller read it. */
export class StaleChangeError extends ConflictError {
  override readonly code = "STALE_CHANGE";
}

/**
 * The record with the change applied, or a StaleChangeError if the change was conditional on a
 * version the record has moved past. Its `updated_at_ms` always moves forward, so a version is
 * never seen twice even within one millisecond.
 */
export function applyAgentChange(
  record: AgentRecord,
  change: AgentChange,
  nowMs: number,
): AgentRecord {
  const { expectUpdatedAtMs, ...fields } = change;
  if (expectUpdatedAtMs !== undefined && record.updated_at_ms !== expectUpdatedAtMs) {
    throw new StaleChangeError(`agent ${record.id} changed meanwhile; read it again and retry`);
  }
  return { ...record, ...fields, updated_at_ms: Math.max(nowMs, record.updated_at_ms + 1) };
}
