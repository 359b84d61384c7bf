import type { ClientTool } from "../records/client-tool.js";
import type { ApprovalDecision } from "../records/messages.js";
import type { PendingCall } from "../records/session-state.js";
import type { Store } from "../storage/store.js";

/**
 * The simulated client's own tool: some messages offer it, the model sometimes calls it (now and
 * then with arguments that do not fit), and the client answers with a result it made.
 */
export const SIM_CLIENT_TOOL: ClientTool = {
  name: "sim_client_lookup",
  description: "Looks a key up on the client's side.",
  parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
};

/** What the client answers; the invariants recognise it in the history. */
const ANSWER_PREFIX = "client looked up ";

/**
 * Whether a message offers the client tool: decided by its otid, so a retry offers the same and
 * the workload's random stream is not drawn on.
 */
export function offersClientTool(otid: string): boolean {
  let hash = 0;
  for (const char of otid) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % 4 === 0;
}

/** The answer to a waiting call: the client's result for its own tool, else the approval. */
export function answerFor(
  call: PendingCall,
  clientTools: readonly ClientTool[],
  approve: boolean,
): ApprovalDecision {
  const id = call.tool_call.tool_call_id;
  if (approve && clientTools.some((tool) => tool.name === call.tool_call.name)) {
    const text = `${ANSWER_PREFIX}${call.tool_call.arguments}`;
    return { type: "tool", tool_call_id: id, tool_return: text, status: "success" };
  }
  return { tool_call_id: id, approve, reason: approve ? null : "no" };
}

/**
 * Errors the loop itself gives a client tool's call instead of asking the client: a denial or an
 * expiry, arguments that do not fit, a call not offered now, the turn's limit, a stopped turn.
 */
const LOOP_ERRORS = [
  /^denied/,
  /^invalid arguments/,
  /^the arguments (are not valid JSON|must be a JSON object)/,
  /may not be called now/,
  /^this turn's limit of \d+ tool calls is reached/,
  /^not run: the turn stopped/,
];

/**
 * The server never runs a client's tool: every tool return of one is the client's answer, or an
 * error the loop made in its place, never a result (or a refusal) of running it here.
 */
export async function clientToolInvariants(
  disk: Store,
  agentIds: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const agentId of agentIds) {
    const messages = await disk.listMessages(agentId, { limit: 1_000_000, order: "asc" });
    for (const m of messages) {
      if (m.message_type !== "tool_return_message" || m.name !== SIM_CLIENT_TOOL.name) continue;
      const theirs = m.status === "success" && m.tool_return.startsWith(ANSWER_PREFIX);
      const loops = m.status === "error" && LOOP_ERRORS.some((re) => re.test(m.tool_return));
      if (!theirs && !loops)
        out.push(
          `${agentId}: client tool call ${m.tool_call_id} ended in neither the client's answer ` +
            `nor the loop's own error: ${m.tool_return.slice(0, 80)}`,
        );
    }
  }
  return out;
}
