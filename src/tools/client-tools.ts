import { z } from "zod";
import type { FieldError } from "../core/errors.js";
import type { ClientTool } from "../records/client-tool.js";
import { type ArgumentCheck, argumentCheck } from "./argument-schema.js";
import type { ToolDeclaration } from "./tool-declaration.js";

/** What a client tool's arguments must be when it declares none: an empty object. */
const NO_ARGUMENTS = { type: "object", properties: {} } as const;

/**
 * A client tool's check of its arguments, from its JSON Schema (`argumentCheck`: no pattern or
 * `$ref` of it can stall the server); or why the schema is unusable. Tools take an object of
 * named arguments, so the schema must describe an object.
 */
export function clientToolParameters(
  tool: ClientTool,
):
  | { ok: true; check: ArgumentCheck; jsonSchema: Record<string, unknown> }
  | { ok: false; error: string } {
  const jsonSchema = tool.parameters ?? NO_ARGUMENTS;
  if (jsonSchema.type !== "object") {
    return { ok: false, error: 'the parameters must be a JSON Schema of "type": "object"' };
  }
  const checked = argumentCheck(jsonSchema);
  if (!checked.ok) return { ok: false, error: `not a usable JSON Schema: ${checked.error}` };
  return { ok: true, check: checked.check, jsonSchema };
}

/**
 * The declaration the model is offered for a client tool. Its risk class is `network` because
 * the call leaves the server (its caller runs it); the server never runs it.
 */
export function clientToolDeclaration(tool: ClientTool): ToolDeclaration {
  const parsed = clientToolParameters(tool);
  const jsonSchema = parsed.ok ? parsed.jsonSchema : NO_ARGUMENTS;
  return {
    name: tool.name,
    description: tool.description ?? "",
    parameters: z.looseObject({}),
    jsonSchema: { ...jsonSchema },
    risk: "network",
  };
}

/**
 * Why a request's client tools cannot be offered: a name given twice, a name one of the agent's
 * own tools has (its calls would be ambiguous), or a schema that is not an object's JSON Schema.
 * Each problem names its field, under `path` (`client_tools`).
 */
export function clientToolProblems(
  tools: readonly ClientTool[],
  agentTools: readonly string[],
  path = "client_tools",
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    if (seen.has(tool.name)) {
      errors.push({ path: `${path}.${i}.name`, message: `'${tool.name}' is given twice` });
    }
    seen.add(tool.name);
    if (agentTools.includes(tool.name)) {
      errors.push({
        path: `${path}.${i}.name`,
        message: `the agent has a tool named '${tool.name}' already; give the client tool another name`,
      });
    }
    const parsed = clientToolParameters(tool);
    if (!parsed.ok) errors.push({ path: `${path}.${i}.parameters`, message: parsed.error });
  });
  return errors;
}

/**
 * Checks a model's call of a client tool before its caller is asked to run it: the arguments must
 * be a JSON object that fits the tool's schema. A failure is told to the model, as for any tool.
 */
export function checkClientArguments(tool: ClientTool, text: string): string | null {
  let raw: unknown;
  try {
    raw = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    return `the arguments are not valid JSON: ${(error as Error).message}`;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return "the arguments must be a JSON object";
  }
  // Loop-level arguments (heartbeats, intent) are the loop's business, not the tool's.
  const {
    request_heartbeat: _heartbeat,
    intent: _intent,
    ...rest
  } = raw as Record<string, unknown>;
  const parsed = clientToolParameters(tool);
  if (!parsed.ok) return parsed.error;
  const found = parsed.check(rest);
  if (found.length === 0) return null;
  const problems = found.map(
    (problem) => `${problem.path.join(".") || "(arguments)"}: ${problem.message}`,
  );
  return `invalid arguments: ${problems.join("; ")}`;
}
