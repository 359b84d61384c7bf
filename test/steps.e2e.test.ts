import { afterEach, describe, expect, it } from "vitest";
import { checkConfig } from "../src/config/config-file.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { startTestServer } from "./support/server-kit.js";
import { until } from "./support/until.js";

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A model that inserts into memory once, then answers. */
const insertThenAnswer = () =>
  createSimModel({
    script: (request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "saved" }
        : { toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "tea" } }] },
  });

function pricedConfig() {
  const prices = { "sim/demo": { input_per_million: 1_000_000, output_per_million: 2_000_000 } };
  const checked = checkConfig({ observability: { prices } });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}

describe("steps and usage through the official client", () => {
  it("records each step of a tool-using turn, with its tool call, tokens and cost", async () => {
    server = await startTestServer({ model: insertThenAnswer(), config: pricedConfig() });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const answer = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "remember tea" }],
    });
    const runId = answer.messages.find((m) => m.run_id)?.run_id ?? "";
    expect(runId).not.toBe("");

    const steps = [];
    for await (const step of client.runs.steps.list(runId, { order: "asc" })) steps.push(step);
    expect(steps).toHaveLength(2);
    const [first, second] = steps as unknown as [Record<string, unknown>, Record<string, unknown>];
    expect(first).toMatchObject({
      agent_id: agent.id,
      run_id: runId,
      model_handle: "sim/demo",
      provider_name: "sim",
      status: "success",
      stop_reason: null,
      tool_calls: [{ name: "memory_insert", outcome: "success", duration_ms: expect.any(Number) }],
    });
    expect(second).toMatchObject({ stop_reason: "end_turn", tool_calls: [] });
    expect(first.prompt_tokens).toBeGreaterThan(0);
    // The price table: 1 USD per input token and 2 per output token.
    const cost = (s: Record<string, unknown>) =>
      (s.prompt_tokens as number) + 2 * (s.completion_tokens as number);
    expect(first.cost_usd).toBeCloseTo(cost(first), 6);

    const one = await client.steps.retrieve(first.id as string);
    expect(one.id).toBe(first.id);
    const listed = [];
    for await (const step of client.steps.list({ agent_id: agent.id })) listed.push(step.id);
    expect(listed.sort()).toEqual(steps.map((s) => s.id).sort());

    const usage = (await client.runs.usage.retrieve(runId)) as Record<string, unknown>;
    const prompt = steps.reduce((n, s) => n + (s.prompt_tokens ?? 0), 0);
    const completion = steps.reduce((n, s) => n + (s.completion_tokens ?? 0), 0);
    expect(usage).toMatchObject({
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      step_count: 2,
      unpriced_models: [],
    });
    expect(usage.cost_usd).toBeCloseTo(prompt + 2 * completion, 6);
    expect(usage.total_tokens).toBe(answer.usage.total_tokens);
  });

  it("shows tokens without a price for a model the table does not know", async () => {
    server = await startTestServer({ model: insertThenAnswer() });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const answer = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "remember tea" }],
    });
    const runId = answer.messages.find((m) => m.run_id)?.run_id ?? "";
    const usage = (await client.runs.usage.retrieve(runId)) as Record<string, unknown>;
    expect(usage.total_tokens).toBe(answer.usage.total_tokens);
    expect(usage.cost_usd).toBeNull();
    expect(usage.unpriced_models).toEqual(["sim/demo"]);
  });

  it("keeps another project's steps and runs out of sight (404)", async () => {
    const tokens = new Map([
      ["token-a", "project-a"],
      ["token-b", "project-b"],
    ]);
    server = await startTestServer({ model: insertThenAnswer(), tokens });
    const a = server.client("token-a");
    const b = server.client("token-b");
    const agent = await a.agents.create({ agent_type: "letta_v1_agent" });
    const answer = await a.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "remember tea" }],
    });
    const runId = answer.messages.find((m) => m.run_id)?.run_id ?? "";
    const stepId = answer.messages.find((m) => m.step_id)?.step_id ?? "";
    await expect(b.steps.retrieve(stepId)).rejects.toMatchObject({ status: 404 });
    await expect(b.runs.usage.retrieve(runId)).rejects.toMatchObject({ status: 404 });
    await expect(b.runs.steps.list(runId)).rejects.toMatchObject({ status: 404 });
    const theirs = [];
    for await (const step of b.steps.list()) theirs.push(step);
    expect(theirs).toEqual([]);
  });

  it("runs a message in the background: the run is answered at once and then completes", async () => {
    server = await startTestServer({ model: insertThenAnswer() });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const run = await client.agents.messages.createAsync(agent.id, {
      messages: [{ role: "user", content: "remember tea" }],
    });
    expect(run).toMatchObject({ agent_id: agent.id, background: true });
    await until(async () => (await client.runs.retrieve(run.id)).status === "completed");
    const messages = [];
    for await (const m of client.runs.messages.list(run.id, { order: "asc" })) messages.push(m);
    expect(messages.map((m) => m.message_type)).toContain("tool_return_message");
    const usage = (await client.runs.usage.retrieve(run.id)) as Record<string, unknown>;
    expect(usage.step_count).toBe(2);
  });
});

describe("a step's messages, metrics, trace and feedback through the official client", () => {
  it("lists the messages each step made, times it, and keeps a rating", async () => {
    server = await startTestServer({ model: insertThenAnswer() });
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const answer = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "remember tea" }],
    });
    const runId = answer.messages.find((m) => m.run_id)?.run_id ?? "";
    const steps = [];
    for await (const step of client.runs.steps.list(runId, { order: "asc" })) steps.push(step);
    const [first, second] = steps.map((s) => s.id) as [string, string];

    const made = async (stepId: string) => {
      const all = [];
      for await (const m of client.steps.messages.list(stepId)) all.push(m);
      return all;
    };
    const firstMade = await made(first);
    expect(firstMade.map((m) => m.message_type)).toContain("tool_call_message");
    expect(firstMade.every((m) => m.step_id === first)).toBe(true);
    expect((await made(second)).map((m) => m.message_type)).toContain("assistant_message");

    const metrics = await client.steps.metrics.retrieve(first);
    expect(metrics).toMatchObject({ id: first, agent_id: agent.id, run_id: runId });
    expect(metrics.llm_request_ns).toBeGreaterThanOrEqual(0);
    expect(metrics.tool_execution_ns).toBeGreaterThanOrEqual(0);
    expect(metrics.step_ns).toBeGreaterThanOrEqual(
      (metrics.llm_request_ns ?? 0) + (metrics.tool_execution_ns ?? 0),
    );
    expect((await client.steps.metrics.retrieve(second)).tool_execution_ns).toBeNull();

    expect(await client.steps.trace.retrieve(first)).toBeNull();

    const rated = await client.steps.feedback.create(first, {
      feedback: "negative",
      tags: ["wrong-block"],
    });
    expect(rated).toMatchObject({ id: first, feedback: "negative", tags: ["wrong-block"] });
    expect(await client.steps.retrieve(first)).toMatchObject({ feedback: "negative" });
    const cleared = await client.steps.feedback.create(first, { feedback: null });
    expect(cleared).toMatchObject({ feedback: null, tags: ["wrong-block"] });
    await expect(
      client.steps.feedback.create(first, { feedback: "great" as "positive" }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(client.steps.metrics.retrieve("step-none")).rejects.toMatchObject({
      status: 404,
    });
    // Letta needs ClickHouse for a run's spans; Holdfast exports them over OTLP instead.
    await expect(client.runs.trace.retrieve(runId)).rejects.toMatchObject({ status: 422 });
  });
});
