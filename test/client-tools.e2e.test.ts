import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Letta from "@letta-ai/letta-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, stopServer } from "./cli.js";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "./fake-openai-server.js";
import { callTool, providerEnv, read, say } from "./support/fake-agents.js";
import { tempDir } from "./support/temp-dirs.js";

const CONFIG = "server:\n  port: 0\n";
/** An agent of Letta's default type on the fake provider's model. */
const HELPER = { agent_type: "letta_v1_agent", model: "openai-compatible/fake-model" } as const;

/** Letta's own test tool (tests/integration_test_client_side_tools.py). */
const SECRET_TOOL = {
  name: "get_secret_code",
  description: "Returns a secret code for the given input text. The client runs it.",
  parameters: {
    type: "object",
    properties: { input_text: { type: "string", description: "The input text" } },
    required: ["input_text"],
  },
};
const SECRET = "CLIENT_SIDE_SECRET_12345";

/** The model calls the client tool when asked for a code, and repeats what a tool returned. */
const provider = () =>
  startFakeOpenAiServer((request) => {
    const r = read(request);
    if (r.lastRole === "tool") return say(`the tool said: ${r.lastText}`);
    if (r.lastText.includes("code")) return callTool("get_secret_code", { input_text: "hello" });
    if (r.lastText.includes("pattern")) return callTool("shell", { command: `${"a".repeat(40)}!` });
    return say("nothing to do");
  });

type Server = Awaited<ReturnType<typeof startServer>>;
const lettaClient = (url: string) => new Letta({ baseURL: url, apiKey: null, maxRetries: 0 });

/** The stopping call of a response: its approval request's tool call. */
function requestedCall(messages: readonly { message_type?: string }[]) {
  const last = messages.at(-1) as {
    message_type?: string;
    tool_call?: { tool_call_id: string; name: string };
  };
  expect(last.message_type).toBe("approval_request_message");
  return last.tool_call ?? { tool_call_id: "", name: "" };
}

const toolReturn = (toolCallId: string, text: string, status: "success" | "error" = "success") => ({
  messages: [
    {
      type: "approval" as const,
      approvals: [{ type: "tool" as const, tool_call_id: toolCallId, tool_return: text, status }],
    },
  ],
  client_tools: [SECRET_TOOL],
});

describe("client tools over the API, with the official client", () => {
  const cwd = tempDir("holdfast-client-tools-");
  writeFileSync(join(cwd, "holdfast.yaml"), CONFIG);
  let fake: FakeOpenAiServer;
  let server: Server;
  let client: Letta;
  beforeAll(async () => {
    fake = await provider();
    server = await startServer([], { cwd, env: providerEnv(fake.baseUrl) });
    client = lettaClient(server.url);
  }, 30_000);
  afterAll(async () => {
    await stopServer(server.process);
    await fake.close();
  });

  it("stops for the client's result and goes on with it (JSON)", async () => {
    const agent = await client.agents.create(HELPER);
    const asked = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "Please get the secret code for 'hello'." }],
      client_tools: [SECRET_TOOL],
    });
    expect(asked.stop_reason.stop_reason).toBe("requires_approval");
    const call = requestedCall(asked.messages);
    expect(call.name).toBe("get_secret_code");
    // The model was offered the client tool with the caller's schema.
    const offered = (fake.requests.at(-1)?.body.tools ?? []) as {
      function: { name: string; parameters: unknown };
    }[];
    expect(
      offered.find((t) => t.function.name === "get_secret_code")?.function.parameters,
    ).toMatchObject(SECRET_TOOL.parameters);

    const done = await client.agents.messages.create(
      agent.id,
      toolReturn(call.tool_call_id, SECRET),
    );
    expect(done.messages[0]).toMatchObject({
      message_type: "tool_return_message",
      tool_call_id: call.tool_call_id,
      tool_return: SECRET,
      status: "success",
    });
    expect(done.messages.at(-1)).toMatchObject({
      message_type: "assistant_message",
      content: `the tool said: ${SECRET}`,
    });
    expect(done.stop_reason.stop_reason).toBe("end_turn");

    const history: string[] = [];
    for await (const m of client.agents.messages.list(agent.id, { order: "asc", limit: 50 }))
      history.push(m.message_type ?? "");
    expect(history).toEqual([
      "user_message",
      "tool_call_message",
      "approval_request_message",
      "approval_response_message",
      "tool_return_message",
      "assistant_message",
    ]);
  });

  it("stops for the client's result and goes on with it (SSE)", async () => {
    const agent = await client.agents.create(HELPER);
    const collect = async (stream: AsyncIterable<{ message_type?: string }>) => {
      const chunks: { message_type?: string; [key: string]: unknown }[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      return chunks;
    };
    const asked = await collect(
      await client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: "Please get the secret code." }],
        client_tools: [SECRET_TOOL],
        streaming: true,
      }),
    );
    const stop = asked.find((c) => c.message_type === "stop_reason");
    expect(stop).toMatchObject({ stop_reason: "requires_approval" });
    const call = requestedCall(asked.filter((c) => c.message_type?.endsWith("_message")));

    const done = await collect(
      await client.agents.messages.create(agent.id, {
        ...toolReturn(call.tool_call_id, "service unavailable", "error"),
        streaming: true,
      }),
    );
    expect(done.map((c) => c.message_type)).toEqual([
      "tool_return_message",
      "assistant_message",
      "stop_reason",
      "usage_statistics",
    ]);
    expect(done[0]).toMatchObject({ tool_return: "service unavailable", status: "error" });
  });

  it("refuses client tools that clash or have no object schema, naming the field", async () => {
    const agent = await client.agents.create(HELPER);
    const send = (tools: Letta.Agents.MessageCreateParams["client_tools"]) =>
      client.agents.messages.create(agent.id, { input: "hi", client_tools: tools });
    await expect(send([SECRET_TOOL, SECRET_TOOL])).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "client_tools.1.name" }] },
    });
    await expect(send([{ name: "memory_insert" }])).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "client_tools.0.name" }] },
    });
    await expect(
      send([{ name: "x", parameters: { type: "object", properties: { a: { type: "nope" } } } }]),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "client_tools.0.parameters" }] },
    });
    // Also before a stream starts: a 4xx, not a 200 stream that fails.
    await expect(
      client.agents.messages.create(agent.id, {
        input: "hi",
        streaming: true,
        client_tools: [{ name: "y", parameters: { type: "string" } }],
      }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it("refuses a schema that refers to itself in place, and the agent goes on", async () => {
    const agent = await client.agents.create(HELPER);
    const loops = [
      { type: "object", $ref: "#" },
      {
        type: "object",
        $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } },
        properties: { command: { $ref: "#/$defs/a" } },
      },
    ];
    for (const parameters of loops) {
      await expect(
        client.agents.messages.create(agent.id, {
          input: "run: ls",
          client_tools: [{ name: "shell", parameters }],
        }),
      ).rejects.toMatchObject({
        status: 422,
        error: { errors: [{ path: "client_tools.0.parameters" }] },
      });
    }
    // A schema that recurses through a property is a tree, and is taken.
    const tree = {
      type: "object",
      properties: { name: { type: "string" }, child: { $ref: "#" } },
    };
    const answered = await client.agents.messages.create(agent.id, {
      input: "hi",
      client_tools: [{ name: "tree", parameters: tree }],
    });
    expect(answered.stop_reason.stop_reason).toBe("end_turn");
  });

  it("checks a client tool's pattern in linear time: a catastrophic one cannot stall the turn", async () => {
    const agent = await client.agents.create(HELPER);
    const parameters = {
      type: "object",
      properties: { command: { type: "string", pattern: "^(a+)+$" } },
      required: ["command"],
    };
    // Backtracking would take days on the 41 characters the model sends; RE2 answers at once.
    const answered = await client.agents.messages.create(agent.id, {
      input: "match the pattern",
      client_tools: [{ name: "shell", parameters }],
    });
    const returned = answered.messages.find((m) => m.message_type === "tool_return_message") as
      | { tool_return: string; status: string }
      | undefined;
    expect(returned).toMatchObject({ status: "error" });
    expect(returned?.tool_return).toMatch(/invalid arguments: command: must match pattern/);
    await expect(
      client.agents.messages.create(agent.id, {
        input: "hi",
        client_tools: [{ name: "shell", parameters: { type: "object", pattern: "(a)\\1" } }],
      }),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "client_tools.0.parameters" }] },
    });
  });

  it("refuses answers that do not fit what waits (a plain approval, a wrong id, nothing pending) with Letta's 400", async () => {
    const agent = await client.agents.create(HELPER);
    const nothing = client.agents.messages.create(agent.id, toolReturn("call-none", "x"));
    await expect(nothing).rejects.toMatchObject({
      status: 400,
      error: {
        errors: [{ message: expect.stringContaining("no tool call is awaiting approval") }],
      },
    });
    const asked = await client.agents.messages.create(agent.id, {
      input: "the code, please",
      client_tools: [SECRET_TOOL],
    });
    const call = requestedCall(asked.messages);
    await expect(
      client.agents.messages.create(agent.id, {
        messages: [
          {
            type: "approval",
            approvals: [{ type: "approval", tool_call_id: call.tool_call_id, approve: true }],
          },
        ],
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: { errors: [{ path: "messages.0.approvals.0.approve" }] },
    });
    await expect(
      client.agents.messages.create(agent.id, {
        ...toolReturn("call-wrong", "x"),
        streaming: true,
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: {
        errors: [{ path: "messages.0.approvals.0.tool_call_id" }, { path: "messages.0.approvals" }],
      },
    });
    await expect(
      client.agents.messages.create(agent.id, { input: "hello?" }),
    ).rejects.toMatchObject({
      status: 409,
      error: { code: "PENDING_APPROVAL" },
    });
    const done = await client.agents.messages.create(
      agent.id,
      toolReturn(call.tool_call_id, SECRET),
    );
    expect(done.stop_reason.stop_reason).toBe("end_turn");
  });
});

describe("a restart between the stop and the client's answer", () => {
  const cwd = tempDir("holdfast-client-tools-crash-");
  writeFileSync(join(cwd, "holdfast.yaml"), CONFIG);
  const started: Server[] = [];
  afterAll(async () => {
    for (const s of started) await stopServer(s.process);
  });

  it("keeps the waiting call and the run's client tools, and the run goes on after kill -9", async () => {
    const fake = await provider();
    const env = providerEnv(fake.baseUrl);
    const first = await startServer([], { cwd, env });
    started.push(first);
    const before = lettaClient(first.url);
    const agent = await before.agents.create(HELPER);
    const asked = await before.agents.messages.create(agent.id, {
      input: "the secret code, please",
      client_tools: [SECRET_TOOL],
    });
    const call = requestedCall(asked.messages);
    await new Promise((resolve) => {
      first.process.once("exit", resolve);
      first.process.kill("SIGKILL");
    });

    const second = await startServer([], { cwd, env });
    started.push(second);
    const after = lettaClient(second.url);
    // The answer comes without client_tools: the run's own, from its checkpoint, still count.
    const done = await after.agents.messages.create(agent.id, {
      messages: [
        {
          type: "approval",
          approvals: [
            {
              type: "tool",
              tool_call_id: call.tool_call_id,
              tool_return: SECRET,
              status: "success",
            },
          ],
        },
      ],
    });
    expect(done.messages[0]).toMatchObject({
      message_type: "tool_return_message",
      tool_return: SECRET,
    });
    expect(done.messages.at(-1)).toMatchObject({ content: `the tool said: ${SECRET}` });
    expect(done.stop_reason.stop_reason).toBe("end_turn");
    // The model call after the restart was still offered the run's client tool.
    const tools = read(
      fake.requests.at(-1) ?? { method: "", path: "", headers: {}, body: {} },
    ).tools;
    expect(tools).toContain("get_secret_code");
    await fake.close();
  }, 60_000);
});
