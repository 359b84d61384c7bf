import { describe, expect, it } from "vitest";
import { resumeSession, sendUserMessage, submitApprovals } from "../src/agent/run-turn.js";
import { ValidationError } from "../src/core/errors.js";
import type { ModelRequest } from "../src/llm/model.js";
import { createSimModel, type SimReply } from "../src/llm/sim/sim-model.js";
import { loopKit, transcript } from "./support/loop-kit.js";

const secret = {
  name: "get_secret_code",
  description: "Returns a secret code for the given text; the client runs it.",
  parameters: {
    type: "object",
    properties: { input_text: { type: "string" } },
    required: ["input_text"],
  },
};
const askSecret: SimReply = {
  toolCalls: [{ name: "get_secret_code", args: { input_text: "hello" } }],
};
const insert: SimReply = {
  toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "likes tea" } }],
};

/** A model that makes `first` its first reply, then answers with the last tool return. */
function kitWith(first: SimReply, seen: ModelRequest[] = []) {
  const model = createSimModel({
    script: (request, call) => {
      seen.push(request);
      if (call === 0) return first;
      const last = request.messages.at(-1) as { role: string; content: string };
      return { text: `got: ${last.content}` };
    },
  });
  return loopKit({ type: "letta_v1_agent", model });
}

const callId = (state: { pending: { tool_call: { tool_call_id: string } }[] }, i = 0) =>
  state.pending[i]?.tool_call.tool_call_id ?? "";

/** Sends the message that makes the model call the client's `get_secret_code`. */
async function askForSecret(kit: Awaited<ReturnType<typeof kitWith>>) {
  return sendUserMessage(
    kit.agent,
    await kit.session(),
    { content: "get the code", clientTools: [secret] },
    kit.deps,
  );
}

/** The client's answer to the first waiting call: its tool's result. */
const clientReturn = (
  state: Parameters<typeof callId>[0],
  toolReturn: string,
  status: "success" | "error",
) => ({ type: "tool" as const, tool_call_id: callId(state), tool_return: toolReturn, status });

describe("client tools in the loop", () => {
  it("offers the run's client tools and stops for the caller when the model calls one", async () => {
    const seen: ModelRequest[] = [];
    const kit = await kitWith(askSecret, seen);
    const asked = await askForSecret(kit);
    const offered = seen[0]?.tools.find((tool) => tool.name === "get_secret_code");
    expect(offered?.parameters).toMatchObject(secret.parameters);
    expect(asked.stopReason).toBe("requires_approval");
    expect(transcript(asked.messages).slice(-2)).toEqual([
      'tool_call_message: get_secret_code {"input_text":"hello"}',
      'approval_request_message: get_secret_code {"input_text":"hello"}',
    ]);
    // The checkpoint holds the run's client tools and the waiting call: a restart keeps both.
    const stored = await kit.store.loadSession(kit.agent.id);
    expect(stored?.phase).toBe("awaiting_approval");
    expect(stored?.client_tools).toEqual([secret]);
    expect(stored?.pending[0]?.status).toBe("awaiting_approval");
  });

  it("continues with the client's result as the call's tool return", async () => {
    const kit = await kitWith(askSecret);
    const asked = await askForSecret(kit);
    const answer = clientReturn(asked.state, "CODE-123", "success");
    const done = await submitApprovals(kit.agent, asked.state, [answer], kit.deps);
    expect(transcript(done.messages)).toEqual([
      "approval_response_message: return:success",
      "tool_return_message: get_secret_code success: CODE-123",
      "assistant_message: got: CODE-123",
    ]);
    expect(done.stopReason).toBe("end_turn");
  });

  it("passes an error the client reports on to the model", async () => {
    const kit = await kitWith(askSecret);
    const asked = await askForSecret(kit);
    const answer = clientReturn(asked.state, "service unavailable", "error");
    const done = await submitApprovals(kit.agent, asked.state, [answer], kit.deps);
    expect(transcript(done.messages).slice(1)).toEqual([
      "tool_return_message: get_secret_code error: service unavailable",
      "assistant_message: got: service unavailable",
    ]);
  });

  it("tells the model about arguments that do not fit the schema, without asking the client", async () => {
    const kit = await kitWith({ toolCalls: [{ name: "get_secret_code", args: { text: 1 } }] });
    const done = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "get the code", clientTools: [secret] },
      kit.deps,
    );
    expect(done.stopReason).toBe("end_turn");
    expect(transcript(done.messages).at(-2)).toMatch(
      /^tool_return_message: get_secret_code error: invalid arguments: input_text/,
    );
  });

  it("refuses a plain approval of a client call, and an answer to a call that is not waiting", async () => {
    const kit = await kitWith(askSecret);
    const asked = await askForSecret(kit);
    const id = callId(asked.state);
    const approve = submitApprovals(
      kit.agent,
      asked.state,
      [{ tool_call_id: id, approve: true, reason: null }],
      kit.deps,
    );
    await expect(approve).rejects.toThrow(ValidationError);
    await expect(approve).rejects.toMatchObject({
      errors: [{ path: "approvals.0.approve", message: expect.stringContaining("client tool") }],
    });
    const wrong = submitApprovals(
      kit.agent,
      asked.state,
      [{ type: "tool", tool_call_id: "call-x", tool_return: "x", status: "success" }],
      kit.deps,
    );
    await expect(wrong).rejects.toMatchObject({
      errors: [
        { path: "approvals.0.tool_call_id" },
        { path: "approvals", message: expect.stringContaining(id) },
      ],
    });
  });

  it("runs a server call first and then asks for the client call of the same response", async () => {
    const kit = await kitWith({
      toolCalls: [...(insert.toolCalls ?? []), ...(askSecret.toolCalls ?? [])],
    });
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "both", clientTools: [secret] },
      kit.deps,
    );
    expect(asked.stopReason).toBe("requires_approval");
    expect(transcript(asked.messages).slice(-2)).toEqual([
      "tool_return_message: memory_insert success: block 'human' now holds 9 of 5000 characters",
      'approval_request_message: get_secret_code {"input_text":"hello"}',
    ]);
    const answer = {
      type: "tool" as const,
      tool_call_id: callId(asked.state, 1),
      tool_return: "CODE-9",
      status: "success" as const,
    };
    const done = await submitApprovals(kit.agent, asked.state, [answer], kit.deps);
    expect(transcript(done.messages).slice(1)).toEqual([
      "tool_return_message: get_secret_code success: CODE-9",
      "assistant_message: got: CODE-9",
    ]);
  });

  it("asks for a client call before running the server call after it, then runs that", async () => {
    const kit = await kitWith({
      toolCalls: [...(askSecret.toolCalls ?? []), ...(insert.toolCalls ?? [])],
    });
    const asked = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "both", clientTools: [secret] },
      kit.deps,
    );
    expect(transcript(asked.messages).at(-1)).toMatch(/^approval_request_message: get_secret_code/);
    expect(asked.state.pending[1]?.status).toBe("pending");
    const answer = clientReturn(asked.state, "CODE-9", "success");
    const done = await submitApprovals(kit.agent, asked.state, [answer], kit.deps);
    expect(transcript(done.messages).slice(1)).toEqual([
      "tool_return_message: get_secret_code success: CODE-9",
      "tool_return_message: memory_insert success: block 'human' now holds 9 of 5000 characters",
      "assistant_message: got: block 'human' now holds 9 of 5000 characters",
    ]);
  });

  it("offers the client tools sent with the answer from then on, as Letta does", async () => {
    const seen: ModelRequest[] = [];
    const kit = await kitWith(askSecret, seen);
    const asked = await askForSecret(kit);
    const answer = clientReturn(asked.state, "CODE-1", "success");
    const ping = { name: "ping" };
    const done = await submitApprovals(kit.agent, asked.state, [answer], kit.deps, [ping]);
    expect(done.state.client_tools).toEqual([ping]);
    const names = seen.at(-1)?.tools.map((t) => t.name) ?? [];
    expect(names).toContain("ping");
    expect(names).not.toContain("get_secret_code");
  });

  it("offers client tools for their run only", async () => {
    const seen: ModelRequest[] = [];
    const kit = await kitWith({ text: "hi" }, seen);
    await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "one", clientTools: [secret] },
      kit.deps,
    );
    await sendUserMessage(kit.agent, await kit.session(), { content: "two" }, kit.deps);
    const names = seen.map((request) => request.tools.some((t) => t.name === "get_secret_code"));
    expect(names).toEqual([true, false]);
  });

  it("ends a client call nobody answers when its request expires, and tells the model", async () => {
    const kit = await kitWith(askSecret);
    const asked = await askForSecret(kit);
    kit.clock.advance(kit.agent.config.approvalTimeoutMs + 1);
    const done = await resumeSession(kit.agent, asked.state, kit.deps);
    expect(transcript(done.messages).at(-2)).toBe(
      "tool_return_message: get_secret_code error: denied: the client sent no result for this call before the request expired",
    );
    expect(done.stopReason).toBe("end_turn");
  });
});
