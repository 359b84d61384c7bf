import { ConflictError } from "../core/errors.js";
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
}

/** A conditional change found the record changed since its caller read it. */
export class StaleChangeError extends ConflictError {
  override readonly code = "STALE_CHANGE";
}
