import {
  fragmentsOf,
  type ScriptedCompletion,
  type SseFrame,
  split,
  tokensOf,
  type WireFormat,
} from "../fake-provider-server.js";
import { openAiChatWire } from "./openai-chat.js";

const CREATED = 1_767_225_600;

function usage(reply: ScriptedCompletion) {
  const { input, output } = tokensOf(reply);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/** The output items of a reply, finished: reasoning, a message, then each function call. */
function outputItems(reply: ScriptedCompletion) {
  const items: Record<string, unknown>[] = [];
  if (reply.reasoning) {
    items.push({
      id: "rs_fake",
      type: "reasoning",
      summary: [{ type: "summary_text", text: reply.reasoning }],
    });
  }
  if (reply.text || reply.refusal !== undefined) {
    const content =
      reply.refusal !== undefined
        ? [{ type: "refusal", refusal: reply.refusal }]
        : [{ type: "output_text", text: reply.text, annotations: [], logprobs: [] }];
    items.push({
      id: "msg_fake",
      type: "message",
      status: "completed",
      role: "assistant",
      content,
    });
  }
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    items.push({
      id: `fc_fake_${i}`,
      type: "function_call",
      status: "completed",
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  }
  return items;
}

function responseObject(reply: ScriptedCompletion, status: string, output: unknown[]) {
  return {
    id: "resp_fake",
    object: "response",
    created_at: CREATED,
    status,
    model: "fake-model",
    output,
    incomplete_details: null,
    error: null,
    usage: status === "completed" ? usage(reply) : null,
  };
}

function streamFrames(reply: ScriptedCompletion): SseFrame[] {
  const frames: SseFrame[] = [];
  const send = (data: Record<string, unknown>) =>
    frames.push({ event: data.type as string, data: { ...data, sequence_number: frames.length } });
  send({ type: "response.created", response: responseObject(reply, "in_progress", []) });
  send({ type: "response.in_progress", response: responseObject(reply, "in_progress", []) });
  for (const [output_index, item] of outputItems(reply).entries()) {
    const item_id = item.id as string;
    if (item.type === "reasoning") {
      send({ type: "response.output_item.added", output_index, item: { ...item, summary: [] } });
      const part = { type: "summary_text", text: "" };
      send({
        type: "response.reasoning_summary_part.added",
        item_id,
        output_index,
        summary_index: 0,
        part,
      });
      for (const delta of split(reply.reasoning ?? "", 6)) {
        send({
          type: "response.reasoning_summary_text.delta",
          item_id,
          output_index,
          summary_index: 0,
          delta,
        });
      }
      send({
        type: "response.reasoning_summary_part.done",
        item_id,
        output_index,
        summary_index: 0,
        part,
      });
    } else if (item.type === "message") {
      send({
        type: "response.output_item.added",
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const where = { item_id, output_index, content_index: 0 };
      if (reply.refusal !== undefined) {
        send({
          type: "response.content_part.added",
          ...where,
          part: { type: "refusal", refusal: "" },
        });
        for (const delta of split(reply.refusal, 6))
          send({ type: "response.refusal.delta", ...where, delta });
        send({ type: "response.refusal.done", ...where, refusal: reply.refusal });
      } else {
        const part = { type: "output_text", text: "", annotations: [] };
        send({ type: "response.content_part.added", ...where, part });
        for (const delta of split(reply.text ?? "", 6)) {
          send({ type: "response.output_text.delta", ...where, delta, logprobs: [] });
        }
        send({ type: "response.output_text.done", ...where, text: reply.text, logprobs: [] });
      }
    } else {
      send({
        type: "response.output_item.added",
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      const call = reply.toolCalls?.find((c) => c.id === item.call_id);
      for (const delta of call ? fragmentsOf(call) : []) {
        send({ type: "response.function_call_arguments.delta", item_id, output_index, delta });
      }
      send({
        type: "response.function_call_arguments.done",
        item_id,
        output_index,
        arguments: item.arguments,
      });
    }
    send({ type: "response.output_item.done", output_index, item });
  }
  send({
    type: "response.completed",
    response: responseObject(reply, "completed", outputItems(reply)),
  });
  return frames;
}

/**
 * OpenAI Responses (`POST /v1/responses`), as in https://platform.openai.com/docs/api-reference/responses-streaming:
 * named, numbered SSE events per output item; refusals as `refusal` content parts; a failure
 * after the stream began as `response.failed`. HTTP errors have the chat-completions shape.
 */
export const openAiResponsesWire: WireFormat = {
  name: "OpenAI Responses",
  basePath: "/v1",
  route: (path, _query, body) =>
    path === "/v1/responses" ? { stream: body.stream === true } : undefined,
  error: openAiChatWire.error,
  json: (reply) => responseObject(reply, "completed", outputItems(reply)),
  stream: streamFrames,
  failure: (failure) => {
    if (failure.midStream && failure.kind === "server") {
      const response = {
        ...responseObject({ type: "completion" }, "failed", []),
        error: { code: "server_error", message: "The model failed to generate a response." },
      };
      return {
        event: "response.failed",
        data: { type: "response.failed", sequence_number: 0, response },
      };
    }
    return openAiChatWire.failure(failure);
  },
};
