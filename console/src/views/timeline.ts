import type { Message, Step } from "../types.js";

/** The run's input (the user's message, an approval's answer) belongs to no step. */
export const NO_STEP = "(input)";

export interface Group {
  id: string;
  /** Its place among the run's steps, from 1. */
  index: number;
  step: Step | undefined;
  messages: Message[];
}

/**
 * The run's messages grouped by step: its input first, then the steps in the order of the step
 * records when there are any (a step with no messages still shows), else in message order.
 */
export function groups({
  messages,
  steps,
}: {
  messages: Message[];
  steps: Step[] | null;
}): Group[] {
  const byId = new Map<string, Group>();
  let index = 0;
  for (const step of steps ?? [])
    byId.set(step.id, { id: step.id, index: ++index, step, messages: [] });
  for (const message of messages) {
    const id = message.step_id ?? NO_STEP;
    let group = byId.get(id);
    if (!group) {
      group = { id, index: id === NO_STEP ? 0 : ++index, step: undefined, messages: [] };
      byId.set(id, group);
    }
    group.messages.push(message);
  }
  const input = byId.get(NO_STEP);
  byId.delete(NO_STEP);
  return input ? [input, ...byId.values()] : [...byId.values()];
}
