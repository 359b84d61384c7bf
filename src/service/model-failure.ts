import { HoldfastError } from "../core/errors.js";

/** Letta's answer to a failed model call: status, error type and message by kind of failure. */
const LETTA_MODEL_ERRORS: Record<string, { status: number; type: string; message: string }> = {
  timeout: {
    status: 504,
    type: "llm_timeout",
    message: "The LLM request timed out. Please try again.",
  },
  rate_limit: {
    status: 429,
    type: "llm_rate_limit",
    message:
      "Rate limit exceeded for LLM model provider. Please wait before making another request.",
  },
  overloaded: { status: 503, type: "llm_provider_overloaded", message: "LLM provider overloaded" },
  auth: {
    status: 401,
    type: "llm_authentication",
    message: "Authentication failed with the LLM model provider.",
  },
  bad_request: {
    status: 400,
    type: "llm_bad_request",
    message: "The request to the LLM model provider was invalid.",
  },
  context_overflow: {
    status: 400,
    type: "context_window_exceeded",
    message: "The context window of the model was exceeded.",
  },
};
const GENERIC = {
  status: 500,
  type: "llm_error",
  message: "An error occurred with the LLM request.",
};

/**
 * A run (not streamed) that ended because its model call failed. Letta's server raises the
 * model's error out of the request (letta/agents/letta_agent_v3.py re-raises it) and its
 * handlers answer with a status by kind and `{error: {type, message, detail}}`
 * (letta/server/rest_api/app.py, the `LLM*Error` handlers); this is that answer.
 */
export class ModelRunError extends HoldfastError {
  readonly code = "LLM_ERROR";
  readonly retryable = false;
  readonly status: number;
  readonly type: string;
  constructor(
    readonly kind: string | undefined,
    readonly detail: string,
    readonly runId: string | null,
  ) {
    const letta = (kind && LETTA_MODEL_ERRORS[kind]) || GENERIC;
    super(letta.message);
    this.status = letta.status;
    this.type = letta.type;
  }
}
