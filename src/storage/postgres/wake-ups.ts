import type { TimerRecord } from "../../records/agent-record.js";
import { wakeUpsOf } from "../../records/session-state.js";
import type { Tx } from "./pool.js";
import { sessionOf, text, timerOf } from "./rows.js";
import { SQL } from "./statements.js";

/**
 * Makes the timers match the waiting sessions (inside a transaction): adds the wake-ups they
 * lack, moves wrong ones, drops the ones no session needs. Returns how many changed.
 */
export async function reconcileWakeUps(tx: Tx): Promise<number> {
  const key = (agentId: string, kind: string) => `${agentId}\u0000${kind}`;
  const needed = new Map<string, TimerRecord>();
  for (const row of (await tx.query(SQL.waitingSessions)).rows) {
    const state = sessionOf(row);
    const agentId = text(row, "agent_id");
    for (const [kind, due] of Object.entries(state ? wakeUpsOf(state) : {})) {
      if (due !== null) {
        needed.set(key(agentId, kind), timerOf({ agent_id: agentId, kind, due_at_ms: due }));
      }
    }
  }
  let changes = 0;
  for (const row of (await tx.query(SQL.allTimers)).rows) {
    const timer = timerOf(row);
    const want = needed.get(key(timer.agent_id, timer.kind));
    needed.delete(key(timer.agent_id, timer.kind));
    if (want?.due_at_ms === timer.due_at_ms) continue;
    if (want) await tx.query(SQL.putTimer, [want.agent_id, want.kind, want.due_at_ms]);
    else await tx.query(SQL.clearTimer, [timer.agent_id, timer.kind]);
    changes += 1;
  }
  for (const want of needed.values()) {
    await tx.query(SQL.putTimer, [want.agent_id, want.kind, want.due_at_ms]);
  }
  return changes + needed.size;
}
