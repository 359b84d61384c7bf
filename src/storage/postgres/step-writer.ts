/** Writes outside a step (block edits, passage inserts, runs), inside a transaction. */
import type { RunRecord } from "../../records/agent-record.js";
import type { Passage } from "../../records/memory-records.js";
import type { AgentMessage } from "../../records/messages.js";
import { searchableText } from "../searchable-text.js";
import { ownedVector } from "./full-text.js";
import type { Tx } from "./pool.js";
import { SQL } from "./statements.js";

export async function writePassages(
  tx: Tx,
  agentKey: number,
  agentId: string,
  passages: readonly Passage[],
): Promise<void> {
  if (passages.length === 0) return;
  await tx.query(SQL.insertPassages, [
    agentId,
    passages.map((p) => p.id),
    passages.map((p) => p.text),
    passages.map((p) => JSON.stringify(p.tags)),
    passages.map((p) => p.created_at_ms),
    passages.map((p) => ownedVector(agentKey, p.text)),
  ]);
}

/** Writes messages outside a step: an imported agent's history, oldest first. */
export async function writeMessages(
  tx: Tx,
  agentKey: number,
  agentId: string,
  messages: readonly AgentMessage[],
): Promise<void> {
  if (messages.length === 0) return;
  const found = messages.map(searchableText);
  await tx.query(SQL.insertMessages, [
    agentId,
    messages.map((m) => m.id),
    messages.map((m) => m.run_id),
    messages.map((m) => m.message_type),
    messages.map((m) => m.date),
    found.map((f) => f?.role ?? null),
    found.map((f) => f?.text ?? null),
    found.map((f) => (f ? ownedVector(agentKey, f.text) : null)),
    messages.map((m) => JSON.stringify(m)),
  ]);
}

/**
 * Writes a run. When it is new, `firstSeq` (its first message in this commit) marks where its
 * messages begin; without one, they begin after every message of its agent stored so far.
 */
export async function writeRun(tx: Tx, run: RunRecord, firstSeq: number | null): Promise<void> {
  const json = JSON.stringify(run);
  await tx.query(SQL.putRun, [run.id, run.agent_id, run.idempotency_key, json, firstSeq]);
}
