import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { HoldfastError, NotFoundError, RetryableError, ValidationError } from "../core/errors.js";
import { PendingApprovalError } from "../runtime/outcomes.js";
import { ModelRunError } from "../service/model-failure.js";

/** The JSON body of every error answer: Letta's `detail` plus a code and, for bad input, fields. */
export interface ErrorBody {
  code: string;
  message: string;
  detail: string;
  errors?: { path: string; message: string }[];
  known?: string[];
  pending_request_id?: string | null;
}

const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  VALIDATION_ERROR: 422,
  INVALID_APPROVAL: 400,
  INVALID_ARGUMENT: 400,
  BAD_FILE: 400,
  UNSUPPORTED_FILE_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PENDING_APPROVAL: 409,
  NO_ACTIVE_RUNS_TO_CANCEL: 409,
  BUSY: 429,
};

/** The one place an error becomes an HTTP status and body. Unknown errors are a 500 and logged. */
export function errorResponse(c: Context, error: unknown, log: (error: unknown) => void) {
  // Hono's own refusals (malformed JSON, a bad content type) are the client's mistake.
  if (error instanceof HTTPException && error.status < 500) {
    const message = error.message || "bad request";
    return c.json(
      body(error.status === 400 ? "BAD_REQUEST" : `HTTP_${error.status}`, message),
      error.status,
    );
  }
  // Nobody reads this answer; the status tells logs and metrics it was the client's doing.
  if (clientWentAway(error)) {
    return c.json(body("CLIENT_CLOSED_REQUEST", "the client closed the connection"), 499 as 400);
  }
  if (!(error instanceof HoldfastError)) {
    log(error);
    return c.json(body("INTERNAL", "internal server error"), 500);
  }
  if (error instanceof ModelRunError) {
    const { type, message, detail } = error;
    const out = { ...body(error.code, message), detail, error: { type, message, detail } };
    return c.json(out, error.status as ContentfulStatusCode);
  }
  const out = body(error.code, error.message);
  if (error instanceof ValidationError) out.errors = [...error.errors];
  if (error instanceof NotFoundError && error.known) out.known = [...error.known];
  if (error instanceof PendingApprovalError)
    out.pending_request_id = error.pendingRequestIds[0] ?? null;
  if (error instanceof RetryableError) {
    c.header("retry-after", String(Math.ceil(error.retryAfterMs / 1000)));
    return c.json(out, STATUS_BY_CODE[error.code] ?? 503);
  }
  return c.json(out, STATUS_BY_CODE[error.code] ?? 400);
}

/** Node's error for a request whose client closed the connection before its body ended. */
function clientWentAway(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.message === "aborted" &&
    (error as NodeJS.ErrnoException).code === "ECONNRESET"
  );
}

export function body(code: string, message: string): ErrorBody {
  return { code, message, detail: message };
}
