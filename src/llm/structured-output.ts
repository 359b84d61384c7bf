import { describeViolations, type SchemaViolation, schemaViolations } from "./json-schema.js";
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse, ModelUsage } from "./model.js";
import { ModelError } from "./model-error.js";

type Output = NonNullable<ModelRequest["output"]>;

/**
 * Makes a reply that was asked for as JSON (`request.output`) match its schema. The provider's
 * structured-output mode is asked for by the adapter, but not every provider has one (the sim
 * model, chat-completions servers that take only `json_object`) and not every mode is strict,
 * so every reply is parsed and validated here. A reply that does not match gets ONE repair call:
 * the model sees its reply and what was wrong with it. A second miss is an `invalid_response`
 * error naming the schema and each violation's path. The reply's text becomes the validated
 * JSON, serialised compactly, and streams as one text delta once it is known to be good.
 * Requests without `output` pass straight through.
 */
export function withStructuredOutput(inner: ModelAdapter): ModelAdapter {
  return {
    handle: inner.handle,
    contextWindow: inner.contextWindow,
    async generate(request, onDelta) {
      const output = request.output;
      if (!output) return inner.generate(request, onDelta);
      // Text is held back until validated: a client must not see a reply that is then repaired.
      const reasoningOnly =
        onDelta && ((delta: ModelDelta) => delta.type !== "text" && onDelta(delta));
      const first = await inner.generate(request, reasoningOnly);
      const checked = checkReply(output, first.text);
      if (checked.ok) return answered(first, checked.json, onDelta);
      const repair = repairRequest(request, first.text, checked.violations);
      const second = merged(first, await inner.generate(repair, reasoningOnly));
      const again = checkReply(output, second.text);
      if (again.ok) return answered(second, again.json, onDelta);
      throw new ModelError(
        "invalid_response",
        `the model's reply does not match the output schema '${output.name}' after one repair: ${describeViolations(again.violations)}`,
      );
    },
  };
}

type Checked = { ok: true; json: string } | { ok: false; violations: SchemaViolation[] };

/** Parses a reply (bare, or in a Markdown code fence) and validates it against the schema. */
export function checkReply(output: Output, text: string): Checked {
  const body = unfenced(text.trim());
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, violations: [{ pointer: "", message: `the reply is not JSON (${why})` }] };
  }
  const violations = schemaViolations(output.schema, value);
  return violations.length === 0
    ? { ok: true, json: JSON.stringify(value) }
    : { ok: false, violations };
}

const FENCE = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/;

function unfenced(text: string): string {
  return FENCE.exec(text)?.[1] ?? text;
}

/** The same request, with the bad reply and what was wrong with it appended. */
function repairRequest(
  request: ModelRequest,
  reply: string,
  violations: readonly SchemaViolation[],
): ModelRequest {
  const { output } = request;
  const schema = JSON.stringify(output?.schema);
  return {
    ...request,
    messages: [
      ...request.messages,
      { role: "assistant", content: reply === "" ? "(no reply)" : reply, toolCalls: [] },
      {
        role: "user",
        content:
          `[system] Your reply does not match the required JSON schema '${output?.name}': ` +
          `${describeViolations(violations)}. Reply again with only a JSON value that matches ` +
          `this schema, and nothing else: ${schema}`,
      },
    ],
  };
}

function answered(
  response: ModelResponse,
  json: string,
  onDelta: ((delta: ModelDelta) => void) | undefined,
): ModelResponse {
  onDelta?.({ type: "text", text: json });
  return { ...response, text: json };
}

/** The repair's response, with the first call's usage, queue time and fallbacks added. */
function merged(first: ModelResponse, second: ModelResponse): ModelResponse {
  const fallbacks = [...(first.fallbacks ?? []), ...(second.fallbacks ?? [])];
  const queued = (first.queueWaitMs ?? 0) + (second.queueWaitMs ?? 0);
  return {
    ...second,
    reasoning: [first.reasoning, second.reasoning].filter((r) => r !== "").join("\n"),
    usage: addUsage(first.usage, second.usage),
    ...(fallbacks.length > 0 && { fallbacks }),
    ...(queued > 0 && { queueWaitMs: queued }),
  };
}

function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  const sum = (x: number | undefined, y: number | undefined) => (x ?? 0) + (y ?? 0);
  const cached = sum(a.cachedInputTokens, b.cachedInputTokens);
  const written = sum(a.cacheWriteInputTokens, b.cacheWriteInputTokens);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(cached > 0 && { cachedInputTokens: cached }),
    ...(written > 0 && { cacheWriteInputTokens: written }),
  };
}
