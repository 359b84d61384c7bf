import { ConflictError } from "../core/errors.js";
import type { AgentRecord } from "./agent-record.js";
import type { ToolRule } from "./tool-rule.js";

/**
 * A change to an agent's record, as data, so any engine can apply it between the agent's
 * turns. `expectUpdatedAtMs` makes it conditional: the caller computed it from the record as
 * of that time, and another change since is a conflict (the caller reads again and retries).
 */
export interface AgentChange {
  expectUpdatedAtMs?: number;
  name?: string;
  overrides?: Record<string, unknown>;
  tool_rules?: ToolRule[];
  tags?: string[];
  metadata?: Record<string, unknown>;
  description?: string | null;
  /** Resets the model's context to the messages after this one (see AgentRecord). */
  context_after?: string;
}

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
