import type { AgentMessage } from "../records/messages.js";

type Body<M> = M extends AgentMessage
  ? Omit<M, "id" | "date" | "run_id" | "step_id" | "otid">
  : never;

/** Stamps message bodies of one step with ids, time, run and step. */
export interface MessageStamp {
  readonly runId: string | null;
  readonly stepId: string | null;
  readonly nowMs: number;
}

/** What a message of a run in this conversation carries (nothing in the default one). */
export function conversationStamp(conversationId: string | null): { conversation_id?: string } {
  return conversationId === null ? {} : { conversation_id: conversationId };
}

/** A message's id within its step: stable, so streamed deltas and the stored message agree. */
export function stepMessageId(stepId: string, slot: string): string {
  return `message-${stepId.replace(/^step-/, "")}-${slot}`;
}

export function stampMessage(
  stamp: MessageStamp,
  id: string,
  body: Body<AgentMessage>,
  otid: string | null = null,
): AgentMessage {
  return {
    ...body,
    id,
    date: new Date(stamp.nowMs).toISOString(),
    run_id: stamp.runId,
    step_id: stamp.stepId,
    otid,
  } as AgentMessage;
}
