import { afterEach, describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { createModel } from "../src/llm/create-model.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import {
  type FakeProviderServer,
  type ScriptedReply,
  startFakeProvider,
} from "./support/fake-provider-server.js";
import { loopKit, transcript } from "./support/loop-kit.js";
import { PROVIDER_CASES, type ProviderCase } from "./support/provider-cases.js";

type Body = Record<string, unknown>;

let fake: FakeProviderServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** `scoring` returns `{score, reasons}`: the example. */
const VERDICT = {
  type: "object",
  properties: {
    score: { type: "number", minimum: 0, maximum: 100 },
    reasons: { type: "array", items: { type: "string" } },
  },
  required: ["score", "reasons"],
  additionalProperties: false,
};

const JUDGE_CONFIG = {
  types: {
    judge: { extends: "scoring", structured_output: { name: "verdict", schema: VERDICT } },
  },
};

const say = (text: string): ScriptedReply => ({ type: "completion", text });

/** One turn of a `judge` agent against `provider`'s fake, scripted with `replies`. */
async function judgeTurn(provider: ProviderCase, replies: ScriptedReply[]) {
  fake = await startFakeProvider(provider.wire, replies);
  const model = createModel(provider.handle, { env: provider.env(fake) });
  const kit = await loopKit({ type: "judge", model, config: JUDGE_CONFIG });
  const result = await sendUserMessage(
    kit.agent,
    await kit.session(),
    { content: "Task: add 2 and 2. Answer: 4" },
    kit.deps,
  );
  const bodies = fake.requests.map((request) => request.body);
  return { result, bodies, kit };
}

const byName = (name: string): ProviderCase => {
  const found = PROVIDER_CASES.find((provider) => provider.name === name);
  if (!found) throw new Error(`no provider case ${name}`);
  return found;
};

const GOOD = '{"score": 90, "reasons": ["correct", "brief"]}';
const COMPACT = '{"score":90,"reasons":["correct","brief"]}';

/** Where each provider's structured-output mode sits in its request body. */
const NATIVE: [string, (body: Body) => unknown, unknown][] = [
  [
    "OpenAI chat completions",
    (body) => body.response_format,
    {
      type: "json_schema",
      json_schema: expect.objectContaining({ name: "verdict", schema: expect.any(Object) }),
    },
  ],
  [
    "OpenAI Responses",
    (body) => (body.text as Body | undefined)?.format,
    expect.objectContaining({ type: "json_schema", name: "verdict", schema: expect.any(Object) }),
  ],
  [
    "Anthropic Messages",
    (body) => (body.output_config as Body | undefined)?.format,
    expect.objectContaining({ type: "json_schema", schema: expect.any(Object) }),
  ],
  [
    "Google Gemini",
    (body) => {
      const config = body.generationConfig as Body | undefined;
      return { mime: config?.responseMimeType, schema: config?.responseJsonSchema };
    },
    { mime: "application/json", schema: expect.objectContaining({ type: "object" }) },
  ],
];

describe("structured output of single_shot types", () => {
  it.each(NATIVE)(
    "asks %s for its structured-output mode and returns the validated JSON",
    async (name, field, expected) => {
      const { result, bodies, kit } = await judgeTurn(byName(name), [say(GOOD)]);
      expect(result.stopReason).toBe("end_turn");
      expect(bodies).toHaveLength(1);
      expect(field(bodies[0] as Body)).toEqual(expected);
      expect(transcript(await kit.messages()).slice(1)).toEqual([`assistant_message: ${COMPACT}`]);
    },
  );

  it("sends the schema's properties to OpenAI as given", async () => {
    const { bodies } = await judgeTurn(byName("OpenAI chat completions"), [say(GOOD)]);
    const format = (bodies[0] as Body).response_format as { json_schema: { schema: Body } };
    expect(format.json_schema.schema.properties).toEqual(VERDICT.properties);
    expect(format.json_schema.schema.required).toEqual(["score", "reasons"]);
  });

  it("repairs once on a provider without a schema mode (Ollama gets json_object): the model is told what was wrong", async () => {
    const { result, bodies, kit } = await judgeTurn(byName("Ollama"), [
      say('{"score": "ninety"}'),
      say(`\`\`\`json\n${GOOD}\n\`\`\``),
    ]);
    expect(result.stopReason).toBe("end_turn");
    expect(bodies.map((body) => body.response_format)).toEqual([
      { type: "json_object" },
      { type: "json_object" },
    ]);
    const repair = ((bodies[1]?.messages ?? []) as { role: string; content: string }[]).slice(-2);
    expect(repair[0]).toMatchObject({ role: "assistant", content: '{"score": "ninety"}' });
    expect(repair[1]?.role).toBe("user");
    expect(repair[1]?.content).toContain("does not match the required JSON schema 'verdict'");
    expect(repair[1]?.content).toContain("at /score: must be number");
    expect(repair[1]?.content).toContain("at /reasons: must have required property 'reasons'");
    // Only the validated answer is kept and shown; both calls count in the run's usage.
    expect(transcript(await kit.messages()).slice(1)).toEqual([`assistant_message: ${COMPACT}`]);
    expect(result.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10 });
  });

  it("fails the run with invalid_llm_response naming the schema violation when the repair misses too", async () => {
    const { result, bodies, kit } = await judgeTurn(byName("Anthropic Messages"), [
      say("I think it deserves a 9/10."),
      say('{"score": 140, "reasons": []}'),
    ]);
    expect(bodies).toHaveLength(2);
    expect(result.stopReason).toBe("invalid_llm_response");
    const error = kit.events.find((event) => event.type === "error");
    expect(error).toMatchObject({
      kind: "invalid_response",
      message: expect.stringContaining(
        "does not match the output schema 'verdict' after one repair",
      ),
    });
    expect(error && "message" in error ? error.message : "").toContain("at /score: must be <= 100");
    expect(transcript(await kit.messages()).slice(1)).toEqual([]);
    const run = await kit.store.getRun(result.state.run_id ?? "");
    expect(run).toMatchObject({ status: "failed", stop_reason: "invalid_llm_response" });
  });

  it("validates and repairs the sim model's replies too, which has no structured mode", async () => {
    const model = createSimModel({ script: [{ text: "score: 70" }, { text: GOOD }] });
    const kit = await loopKit({ type: "judge", model, config: JUDGE_CONFIG });
    const result = await sendUserMessage(
      kit.agent,
      await kit.session(),
      { content: "go" },
      kit.deps,
    );
    expect(result.stopReason).toBe("end_turn");
    expect(model.requests.map((request) => request.output?.name)).toEqual(["verdict", "verdict"]);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringContaining("the reply is not JSON"),
    });
    expect(transcript(await kit.messages()).slice(1)).toEqual([`assistant_message: ${COMPACT}`]);
  });

  it("lets an agent replace its type's schema, or ask for free text", async () => {
    const plain = createSimModel({ script: [{ text: "score: 70" }] });
    const free = await loopKit({
      type: "judge",
      model: plain,
      config: JUDGE_CONFIG,
      overrides: { structured_output: null },
    });
    await sendUserMessage(free.agent, await free.session(), { content: "go" }, free.deps);
    expect(plain.requests[0]?.output).toBeUndefined();
    expect(transcript(await free.messages()).slice(1)).toEqual(["assistant_message: score: 70"]);

    const own = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
    const model = createSimModel({ script: [{ text: '{"ok": true}' }] });
    const kit = await loopKit({
      type: "judge",
      model,
      config: JUDGE_CONFIG,
      overrides: { structured_output: { name: "check", schema: own } },
    });
    await sendUserMessage(kit.agent, await kit.session(), { content: "go" }, kit.deps);
    expect(model.requests[0]?.output).toEqual({ name: "check", schema: own });
    expect(transcript(await kit.messages()).slice(1)).toEqual(['assistant_message: {"ok":true}']);
  });
});
