import type { TimerRecord } from "../../records/agent-record.js";
import { type SessionState, wakeUpsOf } from "../../records/session-state.js";
import { byDueTime, copy, pairKey } from "./rows.js";

/** The in-memory store's timers, keyed by agent and kind. */
export class InMemoryTimers {
  private readonly timers = new Map<string, TimerRecord>();

  /** The session's timers as it needs them: set, moved or cleared with its checkpoint. */
  setWakeUps(agentId: string, state: SessionState): void {
    const wakeUps = Object.entries(wakeUpsOf(state)) as [TimerRecord["kind"], number | null][];
    for (const [kind, due] of wakeUps) {
      const key = pairKey(agentId, kind);
      if (due === null) this.timers.delete(key);
      else this.timers.set(key, { agent_id: agentId, kind, due_at_ms: due });
    }
  }

  /** Makes the timers match the sessions; returns how many changed. */
  reconcile(sessions: readonly { agentId: string; state: SessionState | null }[]): number {
    const before = new Map(this.timers);
    this.timers.clear();
    for (const { agentId, state } of sessions) if (state) this.setWakeUps(agentId, state);
    const moved = (key: string) => before.get(key)?.due_at_ms !== this.timers.get(key)?.due_at_ms;
    return [...new Set([...before.keys(), ...this.timers.keys()])].filter(moved).length;
  }

  put(timer: TimerRecord): void {
    this.timers.set(pairKey(timer.agent_id, timer.kind), timer);
  }

  clear(agentId: string, kind: TimerRecord["kind"]): void {
    this.timers.delete(pairKey(agentId, kind));
  }

  forget(agentId: string): void {
    for (const [key, timer] of this.timers) if (timer.agent_id === agentId) this.timers.delete(key);
  }

  due(nowMs: number): TimerRecord[] {
    const due = [...this.timers.values()].filter((timer) => timer.due_at_ms <= nowMs);
    return due.sort(byDueTime).map(copy);
  }

  next(): TimerRecord | null {
    const timers = [...this.timers.values()].sort(byDueTime);
    return timers[0] ? copy(timers[0]) : null;
  }
}
