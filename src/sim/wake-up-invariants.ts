import { wakeUpsOf } from "../records/session-state.js";
import type { Store } from "../storage/store.js";

/**
 * Every session that waits for a time has its wake-up stored, due when it should be: a paused
 * session its `wake`, a session awaiting approval its `approval_expiry`. Without it, the session
 * waits for ever and every new message gets 409.
 */
export async function wakeUpInvariants(disk: Store, agentIds: Iterable<string>): Promise<string[]> {
  const stored = new Map<string, number>();
  for (const timer of await disk.dueTimers(Number.MAX_SAFE_INTEGER)) {
    stored.set(`${timer.agent_id} ${timer.kind}`, timer.due_at_ms);
  }
  const violations: string[] = [];
  for (const agentId of new Set(agentIds)) {
    const session = await disk.loadSession(agentId);
    if (!session) continue;
    for (const [kind, due] of Object.entries(wakeUpsOf(session))) {
      if (due === null) continue;
      const found = stored.get(`${agentId} ${kind}`);
      if (found === undefined) {
        violations.push(`session of ${agentId} is ${session.phase} with no ${kind} timer`);
      } else if (found !== due) {
        violations.push(`${kind} timer of ${agentId} is due at ${found}, its session says ${due}`);
      }
    }
  }
  return violations;
}
