/** The API's shapes, as far as the console reads them (Letta's where Letta has one). */
export interface ToolCall {
  name: string;
  arguments: string;
  tool_call_id: string;
}

export interface Message {
  id: string;
  message_type: string;
  date?: string;
  run_id?: string | null;
  step_id?: string | null;
  content?: unknown;
  reasoning?: string;
  tool_call?: ToolCall;
  tool_calls?: ToolCall[];
  tool_return?: string;
  tool_call_id?: string;
  name?: string;
  status?: string;
  approve?: boolean | null;
  reason?: string | null;
  stop_reason?: string;
  agent_id?: string;
  prompt_tokens?: number;
  completion_tokens?: number;
}

export interface Agent {
  id: string;
  name: string;
  agent_type: string;
  model: string | null;
  description: string | null;
  created_at: string;
  last_stop_reason?: string | null;
  pending_approval?: Message | null;
}

export interface Block {
  id: string;
  label: string;
  value: string;
  limit: number;
  description?: string | null;
}

export interface Passage {
  id: string;
  text: string;
  created_at?: string;
}

export interface Run {
  id: string;
  agent_id: string;
  status: string;
  stop_reason: string | null;
  created_at: string;
  completed_at: string | null;
  total_duration_ns: number | null;
  usage?: { prompt_tokens: number; completion_tokens: number; step_count: number };
  models?: string[];
}

/** Letta's Step (`client.runs.steps.list`, `client.steps.retrieve`). */
export interface Step {
  id: string;
  run_id?: string | null;
  model?: string | null;
  model_handle?: string | null;
  status?: string | null;
  stop_reason?: string | null;
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  error_type?: string | null;
  [field: string]: unknown;
}

export interface ChildNode {
  id: string;
  name: string;
  agent_type: string;
  status: string;
  task_run: { id: string; status: string; stop_reason: string | null } | null;
  children: ChildNode[];
}

/** The text of a message's content, which is a string or Letta's list of parts. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => (part && typeof part === "object" && "text" in part ? String(part.text) : ""))
      .join("");
  return "";
}
