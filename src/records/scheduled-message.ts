import { z } from "zod";

/** One message a schedule sends: text, as the agent's messages route takes it. */
export const ScheduledInput = z.object({
  role: z.enum(["user", "system"]),
  content: z.union([
    z.string().max(1_000_000),
    z
      .array(z.object({ type: z.literal("text").optional(), text: z.string().max(1_000_000) }))
      .min(1)
      .max(100),
  ]),
  name: z.string().max(200).nullish(),
});
export type ScheduledInput = z.infer<typeof ScheduledInput>;

/** The last instant a one-time message may be set for: the end of year 9999 (UTC). */
export const LATEST_SCHEDULED_AT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** When: once at `scheduled_at` (Unix milliseconds), or on a five-field cron expression (UTC). */
export const MessageSchedule = z.union([
  z.object({
    type: z.literal("one-time").optional(),
    scheduled_at: z.number().min(0).max(LATEST_SCHEDULED_AT_MS),
  }),
  z.object({ type: z.literal("recurring"), cron_expression: z.string().min(1).max(200) }),
]);
export type MessageSchedule = z.infer<typeof MessageSchedule>;

/**
 * A message the server sends to an agent later (Letta's scheduled message). `next_at_ms` is the
 * next time it fires; a one-time message is deleted when it fires, a recurring one moves on. The
 * send carries the idempotency key `schedule-<id>-<next_at_ms>`, so a firing the server repeats
 * after a crash (sent, not yet moved on) finds the run it started and sends nothing again.
 */
export const ScheduledMessageRecord = z.object({
  id: z.string(),
  agent_id: z.string(),
  messages: z.array(ScheduledInput).min(1).max(100),
  max_steps: z.int().min(1).max(1000).nullable(),
  include_return_message_types: z.array(z.string()).nullable(),
  callback_url: z.string().nullable(),
  schedule: MessageSchedule,
  next_at_ms: z.number(),
  created_at_ms: z.number(),
});
export type ScheduledMessageRecord = z.infer<typeof ScheduledMessageRecord>;

/** The idempotency key of one firing: the same for a firing repeated after a crash. */
export function firingKey(record: ScheduledMessageRecord): string {
  return `schedule-${record.id}-${record.next_at_ms}`;
}
