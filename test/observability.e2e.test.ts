import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";
import { until } from "./support/until.js";

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  receiver = undefined;
});

const insertThenAnswer = () =>
  createSimModel({
    script: (request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "saved" }
        : { toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "tea" } }] },
  });

/** The value of one sample of a Prometheus text page (0 when absent). */
function sample(page: string, name: string, labels = ""): number {
  const line = page.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

describe("GET /metrics", () => {
  it("counts turns, steps, model calls, tool calls and tokens by the right amounts", async () => {
    server = await startTestServer({ model: insertThenAnswer() });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    let prompt = 0;
    let completion = 0;
    for (const text of ["one", "two"]) {
      const answer = await client.agents.messages.create(agent.id, {
        messages: [{ role: "user", content: text }],
      });
      prompt += answer.usage.prompt_tokens ?? 0;
      completion += answer.usage.completion_tokens ?? 0;
    }
    const response = await fetch(`${server.metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const page = await response.text();
    expect(sample(page, "holdfast_turns_total", '{outcome="end_turn"}')).toBe(2);
    expect(sample(page, "holdfast_steps_total", '{status="success"}')).toBe(4);
    expect(sample(page, "holdfast_model_calls_total", '{provider="sim",model="sim/demo"}')).toBe(4);
    const tool = '{tool="memory_insert",outcome="success"}';
    expect(sample(page, "holdfast_tool_calls_total", tool)).toBe(2);
    expect(
      sample(page, "holdfast_tool_call_duration_seconds_count", '{tool="memory_insert"}'),
    ).toBe(2);
    expect(sample(page, "holdfast_tokens_total", '{provider="sim",direction="input"}')).toBe(
      prompt,
    );
    expect(sample(page, "holdfast_tokens_total", '{provider="sim",direction="output"}')).toBe(
      completion,
    );
    expect(sample(page, "holdfast_turn_duration_seconds_count")).toBe(2);
    // Each turn commits its first message, its model call with its tool's return, and its end.
    expect(sample(page, "holdfast_checkpoint_commit_seconds_count")).toBeGreaterThanOrEqual(6);
    expect(sample(page, "holdfast_active_agents")).toBe(1);
    expect(sample(page, "holdfast_mailbox_depth")).toBe(0);
    expect(page).toContain("holdfast_rate_limit_wait_seconds_count");
  });

  it("asks for a bearer token when tokens are configured", async () => {
    server = await startTestServer({ tokens: new Map([["token-a", "project-a"]]) });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const withToken = await fetch(`${server.url}/metrics`, {
      headers: { authorization: "Bearer token-a" },
    });
    expect(withToken.status).toBe(200);
  });

  it("keeps each server's counts apart (no global registry)", async () => {
    server = await startTestServer();
    const page = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(page, "holdfast_turns_total", '{outcome="end_turn"}')).toBe(0);
  });
});

interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

describe("OpenTelemetry traces", () => {
  it("exports run, step, model call and tool call spans over OTLP/HTTP", async () => {
    const spans: OtlpSpan[] = [];
    const paths: string[] = [];
    receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        paths.push(request.url ?? "");
        const parsed = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const r of parsed.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, "127.0.0.1", resolve));
    const port = (receiver.address() as AddressInfo).port;
    server = await startTestServer({
      model: insertThenAnswer(),
      otelEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "remember tea" }],
    });
    await server.close(); // flushes the exporter
    server = undefined;
    await until(() => spans.length >= 6);
    expect(paths.every((path) => path === "/v1/traces")).toBe(true);
    const attr = (span: OtlpSpan, key: string) => {
      const value = span.attributes.find((a) => a.key === key)?.value;
      return (
        value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue))
      );
    };
    const named = (name: string) => spans.filter((span) => span.name === name);
    const [run] = named("invoke_agent");
    expect(run && attr(run, "gen_ai.operation.name")).toBe("invoke_agent");
    expect(run && attr(run, "gen_ai.agent.id")).toBe(agent.id);
    expect(run && attr(run, "holdfast.stop_reason")).toBe("end_turn");
    const steps = named("step");
    expect(steps).toHaveLength(2);
    for (const step of steps) expect(step.parentSpanId).toBe(run?.spanId);
    const chats = named("chat demo");
    expect(chats).toHaveLength(2);
    expect(chats.map((chat) => chat.parentSpanId).sort()).toEqual(
      steps.map((s) => s.spanId).sort(),
    );
    const [chat] = chats;
    expect(chat && attr(chat, "gen_ai.operation.name")).toBe("chat");
    expect(chat && attr(chat, "gen_ai.provider.name")).toBe("sim");
    expect(chat && attr(chat, "gen_ai.request.model")).toBe("demo");
    expect(chat && attr(chat, "gen_ai.usage.input_tokens")).toBeGreaterThan(0);
    const [tool] = named("execute_tool memory_insert");
    expect(tool && attr(tool, "gen_ai.tool.name")).toBe("memory_insert");
    expect(tool && attr(tool, "gen_ai.operation.name")).toBe("execute_tool");
    // The tool ran in the first step: the one whose chat asked for it.
    const first = steps.find((s) => chats.some((c) => c.parentSpanId === s.spanId));
    expect(steps.map((s) => s.spanId)).toContain(tool?.parentSpanId);
    expect(first).toBeDefined();
  });
});
