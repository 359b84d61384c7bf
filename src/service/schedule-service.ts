import { z } from "zod";
import { nextCronTime, parseCron } from "../core/cron.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import {
  MessageSchedule,
  ScheduledInput,
  type ScheduledMessageRecord,
} from "../records/scheduled-message.js";
import { requireAgent, type ServiceContext } from "./agent-access.js";
import { refuseCallbackUrl } from "./callback-url.js";
import type { ScheduledMessageLoop } from "./scheduled-message-loop.js";

/** `POST /v1/agents/{id}/schedule`: Letta's fields (its client's `ScheduleCreateParams`). */
export const CreateScheduleRequest = z.object({
  messages: z
    .array(
      ScheduledInput.extend({
        type: z.literal("message").optional(),
        otid: z.string().max(200).nullish(),
      }),
    )
    .min(1)
    .max(100),
  schedule: MessageSchedule,
  max_steps: z.int().min(1).max(1000).nullish(),
  include_return_message_types: z.array(z.string().max(50)).max(20).nullish(),
  callback_url: z.string().max(2000).nullish(),
});
export type CreateScheduleRequest = z.infer<typeof CreateScheduleRequest>;

/** `GET /v1/agents/{id}/schedule`: Letta's cursor and page size (a string in its client). */
export const ScheduleListQuery = z.object({
  after: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
});
export type ScheduleListQuery = z.infer<typeof ScheduleListQuery>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Letta's `ScheduledMessage`. */
function scheduleView(record: ScheduledMessageRecord) {
  return {
    id: record.id,
    agent_id: record.agent_id,
    message: {
      messages: record.messages,
      ...(record.max_steps !== null && { max_steps: record.max_steps }),
      ...(record.include_return_message_types !== null && {
        include_return_message_types: record.include_return_message_types,
      }),
    },
    schedule: record.schedule,
    next_scheduled_time: iso(record.next_at_ms),
  };
}

/** Scheduled messages of an agent: Letta's schedule routes. The loop fires them. */
export class ScheduleService {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly loop: ScheduledMessageLoop | null,
  ) {}

  async create(projectId: string, agentId: string, body: CreateScheduleRequest) {
    await requireAgent(this.ctx, projectId, agentId);
    const next = this.#firstFiring(body);
    const record: ScheduledMessageRecord = {
      id: this.ctx.ids.next("scheduled_message"),
      agent_id: agentId,
      messages: body.messages.map((m) => ({
        role: m.role,
        content: m.content,
        ...(m.name != null && { name: m.name }),
      })),
      max_steps: body.max_steps ?? null,
      include_return_message_types: body.include_return_message_types ?? null,
      callback_url: null,
      schedule: body.schedule,
      next_at_ms: next,
      created_at_ms: this.ctx.clock.now(),
    };
    await this.ctx.store.schedules.put(record);
    this.loop?.notice();
    return { id: record.id, next_scheduled_at: iso(next) };
  }

  async list(projectId: string, agentId: string, query: ScheduleListQuery) {
    await requireAgent(this.ctx, projectId, agentId);
    const page = await this.ctx.store.schedules.list(agentId, {
      ...(query.after !== undefined && { after: query.after }),
      limit: query.limit + 1,
    });
    return {
      scheduled_messages: page.slice(0, query.limit).map(scheduleView),
      has_next_page: page.length > query.limit,
    };
  }

  async get(projectId: string, agentId: string, id: string) {
    return scheduleView(await this.#own(projectId, agentId, id));
  }

  async delete(projectId: string, agentId: string, id: string) {
    await this.#own(projectId, agentId, id);
    await this.ctx.store.schedules.delete(id);
    return { success: true as const };
  }

  async #own(projectId: string, agentId: string, id: string) {
    await requireAgent(this.ctx, projectId, agentId);
    const record = await this.ctx.store.schedules.get(id);
    if (record?.agent_id !== agentId) throw new NotFoundError("scheduled message", id);
    return record;
  }

  /** When the message first fires; a callback or a cron expression that never fires is a 422. */
  #firstFiring(body: CreateScheduleRequest): number {
    refuseCallbackUrl(body.callback_url, "each firing is a run");
    if (body.schedule.type !== "recurring") return body.schedule.scheduled_at;
    const path = "schedule.cron_expression";
    try {
      const next = nextCronTime(parseCron(body.schedule.cron_expression), this.ctx.clock.now());
      if (next !== null) return next;
      throw new Error("it matches no date in the next five years");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ValidationError("invalid cron expression", [{ path, message }]);
    }
  }
}
