import { type Message, type Step, textOf } from "../types.js";
import type { Exchange } from "./journal.js";

interface StepToolCall {
  tool_call_id: string;
  name: string;
  outcome: string;
  duration_ms: number | null;
}

/** A step record's facts: model, tokens, latency, queue wait, each tool call's outcome. */
export function StepFacts({ step }: { step: Step }) {
  const calls = (step.tool_calls ?? []) as StepToolCall[];
  const cost = step.cost_usd;
  return (
    <div class="facts small" data-testid="step-facts">
      <span>model {step.model_handle ?? step.model ?? "?"}</span>
      <span>status {step.status ?? "?"}</span>
      {step.stop_reason && <span>stop {step.stop_reason}</span>}
      <span>
        tokens {step.prompt_tokens ?? "?"} in / {step.completion_tokens ?? "?"} out /{" "}
        {String(step.cached_input_tokens ?? 0)} cached
      </span>
      <span>model latency {ms(step.model_latency_ms)}</span>
      <span>queue wait {ms(step.queue_wait_ms)}</span>
      {typeof cost === "number" && <span>cost ${cost.toFixed(6)}</span>}
      {calls.map((call) => (
        <span key={call.tool_call_id} data-tool-call={call.name}>
          tool {call.name} → {call.outcome}
          {call.duration_ms === null ? " (not run here)" : ` in ${call.duration_ms} ms`}
        </span>
      ))}
      {step.error_type && <span class="error">error {step.error_type}</span>}
    </div>
  );
}

function ms(value: unknown): string {
  return typeof value === "number" ? `${value} ms` : "?";
}

/**
 * The model request and response of a step as far as the run journal recorded them: the new
 * messages the call saw, the tools offered and tool_choice; the text, reasoning and tool calls
 * the model answered; and what the loop decided next.
 */
export function ModelExchange({
  exchange,
  inputs,
}: {
  exchange: Exchange | undefined;
  inputs: Message[] | undefined;
}) {
  if (!exchange)
    return <p class="muted small">No journal entry for this step (a run from before journals).</p>;
  const response = exchange.response;
  return (
    <details class="exchange" data-testid="exchange" open>
      <summary class="small">model request and response</summary>
      <div class="small" data-testid="request">
        <strong>request</strong> · tool_choice <code>{exchange.toolChoice}</code> · tools offered:{" "}
        {exchange.offered.length ? exchange.offered.map((t) => <code key={t}>{t}</code>) : "none"}
        {inputs && inputs.length > 0 && (
          <div>
            new messages:{" "}
            {inputs.map((m) => (
              <div key={`${m.id}:${m.message_type}`} class="muted">
                {m.message_type.replace("_message", "")}: {inputText(m)}
              </div>
            ))}
          </div>
        )}
      </div>
      <div class="small" data-testid="response">
        <strong>response</strong>{" "}
        {exchange.failed ? (
          <span class="error">the call failed: {exchange.failed}</span>
        ) : response ? (
          <>
            · finish <code>{response.finishReason}</code>
            {response.model && <> · answered by {response.model}</>}
            {response.reasoning && <pre class="reasoning">{response.reasoning}</pre>}
            {response.text && <pre>{response.text}</pre>}
            {response.toolCalls.map((call) => (
              <div key={call.id}>
                <code>
                  {call.name}({call.arguments})
                </code>
              </div>
            ))}
          </>
        ) : null}
      </div>
      {exchange.after.length > 0 && (
        <div class="small muted">then: {exchange.after.join("; ")}</div>
      )}
    </details>
  );
}

function inputText(m: Message): string {
  if (m.message_type === "tool_return_message") return `${m.name ?? "tool"} → ${m.tool_return}`;
  if (m.message_type === "approval_response_message") return m.approve ? "approved" : "denied";
  return textOf(m.content);
}

/** Said once on the timeline: what the journal does not hold. */
export function NotRecorded() {
  return (
    <p class="muted small" data-testid="not-recorded">
      Recorded per step: the tools offered, tool_choice, the model's response (text, reasoning, tool
      calls) and the new messages it saw. Not recorded: the full prompt as sent (system prompt,
      memory blocks and earlier history), sampling settings and the raw provider request.
    </p>
  );
}
