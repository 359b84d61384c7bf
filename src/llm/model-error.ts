import { HoldfastError } from "../core/errors.js";

/**
 * Why a model call failed. `timeout`, `rate_limit`, `overloaded`, `server` and `network` are
 * transient; the rest will fail again the same way. `refused` is the provider declining to
 * answer (OpenAI's `refusal`, Anthropic's `refusal` stop reason, Gemini's `SAFETY` block).
 */
export type ModelErrorKind =
  | "timeout"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "network"
  | "auth"
  | "bad_request"
  | "not_found"
  | "context_overflow"
  | "refused"
  | "invalid_response";

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set([
  "timeout",
  "rate_limit",
  "overloaded",
  "server",
  "network",
]);

export class ModelError extends HoldfastError {
  readonly code = "MODEL_ERROR";
  readonly retryable: boolean;

  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    /** How long the provider asked us to wait (`retry-after`), if it did. */
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.retryable = RETRYABLE.has(kind);
  }
}
