import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "./support/server-kit.js";

/**
 * `/openapi.json` is what a generated client is typed by: each route's declared response must
 * be what the server answers. These walk the document and check real answers against it.
 */

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}
type JsonSchema = Record<string, unknown>;
interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

let server: Awaited<ReturnType<typeof startTestServer>>;
let doc: OpenApiDoc;
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  server = await startTestServer();
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDoc;
});
afterAll(() => server.close());

/** The JSON schema the document declares for a route's answer with this status. */
function declared(path: string, method: string, status: number): JsonSchema {
  const operation = doc.paths[path]?.[method];
  const schema = operation?.responses?.[String(status)]?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`${method} ${path} declares no JSON ${status} response`);
  return schema;
}

/**
 * The errors of `body` against the declared schema; none when it conforms. Objects that name
 * their fields are closed, so a field the server sends and the document does not name is an
 * error too: a generated client would not know it.
 */
function violations(path: string, method: string, status: number, body: unknown): string[] {
  // The document's `#/components/...` references resolve against the schema's root.
  const schema = { ...declared(path, method, status), components: doc.components };
  const validate = ajv.compile(closed(schema) as JsonSchema);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e: ErrorObject) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

/** Calls a route and checks its answer against what `/openapi.json` says of the route. */
async function conforms(
  method: string,
  template: string,
  params: Record<string, string>,
  body?: unknown,
): Promise<unknown> {
  const url = template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? "");
  const response = await fetch(`${server.url}${url}`, {
    method: method.toUpperCase(),
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
  const json: unknown = await response.json();
  expect(response.status, `${method} ${url}: ${JSON.stringify(json)}`).toBe(200);
  expect(violations(template, method, 200, json), `${method} ${url}`).toEqual([]);
  return json;
}

const say = (content: string) => ({ messages: [{ role: "user", content }] });

describe("/openapi.json describes what the server answers", () => {
  it("gives every route a response schema, and a typed one for each JSON success", () => {
    const problems: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const responses = Object.entries(operation.responses ?? {});
        const schemas = responses.flatMap(([, r]) =>
          Object.values(r.content ?? {}).flatMap((c) => (c.schema ? [c.schema] : [])),
        );
        if (schemas.length === 0) problems.push(`${method} ${path}: no response schema`);
        for (const [status, response] of responses) {
          const json = response.content?.["application/json"];
          if (!status.startsWith("2") || !json) continue;
          if (!json.schema || untyped(json.schema, doc)) {
            problems.push(`${method} ${path} ${status}: an untyped object`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("answers an agent, its messages, a run, its steps and usage as declared", async () => {
    const agent = (await conforms(
      "post",
      "/v1/agents",
      {},
      {
        name: "typed",
        agent_type: "memgpt_agent",
      },
    )) as { id: string };
    const agent_id = agent.id;
    await conforms("get", "/v1/agents/{agent_id}", { agent_id });
    await conforms("get", "/v1/agents", {});

    // A tool call, its return and a reply: most of Letta's message types in one run.
    const sent = (await conforms(
      "post",
      "/v1/agents/{agent_id}/messages",
      { agent_id },
      {
        messages: [{ role: "user", content: "my name is Ada" }],
      },
    )) as { messages: { run_id: string; message_type: string }[] };
    const types = new Set(sent.messages.map((m) => m.message_type));
    expect(types).toEqual(
      new Set(["tool_call_message", "tool_return_message", "assistant_message"]),
    );
    const run_id = sent.messages[0]?.run_id ?? "";

    const listed = (await conforms("get", "/v1/agents/{agent_id}/messages", {
      agent_id,
    })) as unknown[];
    expect(listed.length).toBeGreaterThanOrEqual(4);
    await conforms("get", "/v1/runs/{run_id}", { run_id });
    await conforms("get", "/v1/runs", {});
    await conforms("get", "/v1/runs/{run_id}/messages", { run_id });
    const steps = (await conforms("get", "/v1/runs/{run_id}/steps", { run_id })) as {
      id: string;
    }[];
    const step_id = steps[0]?.id ?? "";
    await conforms("get", "/v1/steps/{step_id}", { step_id });
    await conforms("get", "/v1/runs/{run_id}/usage", { run_id });
    await conforms("get", "/v1/tools", {});
    await conforms("get", "/v1/agents/{agent_id}/tools", { agent_id });
    await conforms("post", "/v1/agents/{agent_id}/messages/async", { agent_id }, say("hi"));
  });

  it("fails an answer that breaks its declared schema (the check can fail)", () => {
    const run = { id: "run-1", agent_id: "agent-1", status: "finished" };
    expect(violations("/v1/runs/{run_id}", "get", 200, run)).not.toEqual([]);
  });
});

/** `schema` with `additionalProperties: false` on every object schema that names fields. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== "object" || schema === null) return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  const named = Object.keys((out.properties as JsonSchema | undefined) ?? {}).length > 0;
  return named ? { ...out, additionalProperties: false } : out;
}

/**
 * An object schema that names no property (`z.looseObject({})`, `z.record(…, z.unknown())`):
 * a generated client learns nothing from it.
 */
function untyped(schema: JsonSchema, root: OpenApiDoc): boolean {
  const ref = typeof schema.$ref === "string" ? schema.$ref.split("/").at(-1) : undefined;
  const resolved = ref ? (root.components?.schemas?.[ref] ?? {}) : schema;
  if (resolved.type === "array") {
    const items = resolved.items as JsonSchema | undefined;
    return items === undefined || untyped(items, root);
  }
  if (resolved.type !== "object") return false;
  const named = Object.keys((resolved.properties as JsonSchema | undefined) ?? {}).length > 0;
  // No `additionalProperties` (`z.object({})`) documents an empty object, which is typed.
  const values = resolved.additionalProperties as JsonSchema | boolean | undefined;
  const open = values === true || (typeof values === "object" && Object.keys(values).length === 0);
  return !named && open;
}
