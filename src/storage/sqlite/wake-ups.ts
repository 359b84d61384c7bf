import type { TimerRecord } from "../../records/agent-record.js";
import { type SessionState, wakeUpsOf } from "../../records/session-state.js";
import { sessionOf, text, timerOf } from "./rows.js";
import type { Statements } from "./statements.js";

/** The session's timers, as it needs them: set, moved or cleared, inside its commit. */
export function writeWakeUps(sql: Statements, agentId: string, state: SessionState): void {
  for (const [kind, due] of Object.entries(wakeUpsOf(state))) {
    if (due === null) sql.clearTimer.run(agentId, kind);
    else sql.putTimer.run(agentId, kind, due);
  }
}

/**
 * Makes the timers match the waiting sessions (inside a transaction): adds the wake-ups they
 * lack, moves wrong ones, drops the ones no session needs. Returns how many changed.
 */
export function reconcileWakeUps(sql: Statements): number {
  const key = (agentId: string, kind: string) => `${agentId}\u0000${kind}`;
  const needed = new Map<string, TimerRecord>();
  for (const row of sql.waitingSessions.all()) {
    const state = sessionOf(row);
    const agentId = text(row, "agent_id");
    for (const [kind, due] of Object.entries(state ? wakeUpsOf(state) : {})) {
      if (due !== null) {
        needed.set(key(agentId, kind), timerOf({ agent_id: agentId, kind, due_at_ms: due }));
      }
    }
  }
  let changes = 0;
  for (const row of sql.allTimers.all()) {
    const timer = timerOf(row);
    const want = needed.get(key(timer.agent_id, timer.kind));
    needed.delete(key(timer.agent_id, timer.kind));
    if (want?.due_at_ms === timer.due_at_ms) continue;
    if (want) sql.putTimer.run(want.agent_id, want.kind, want.due_at_ms);
    else sql.clearTimer.run(timer.agent_id, timer.kind);
    changes += 1;
  }
  for (const want of needed.values()) sql.putTimer.run(want.agent_id, want.kind, want.due_at_ms);
  return changes + needed.size;
}
