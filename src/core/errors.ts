/**
 * The one error hierarchy of Holdfast. Every error says whether retrying can help:
 * terminal errors (bad input, not found, forbidden) are never retried; retryable ones
 * (timeouts, rate limits, a busy store) carry how long to wait.
 */

/** A problem with one field of some input, located by its dotted path (`tools.allow.0`). */
export interface FieldError {
  path: string;
  message: string;
}

export abstract class HoldfastError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input: the caller must change what it sends. */
export class ValidationError extends HoldfastError {
  readonly code: string = "VALIDATION_ERROR";
  readonly retryable = false;
  constructor(
    message: string,
    readonly errors: readonly FieldError[],
  ) {
    super(message);
  }
}

/**
 * An answer to approvals that does not match what the agent waits for (a wrong `tool_call_id`,
 * nothing pending). Letta answers these with 400, not the 422 of a malformed body.
 */
export class InvalidApprovalError extends ValidationError {
  override readonly code: string = "INVALID_APPROVAL";
}

/**
 * A request that is well formed but cannot be done as asked (nothing to compact, no run to
 * re-attach to): Letta's `LettaInvalidArgumentError`, a 400 rather than the 422 of bad input.
 */
export class InvalidArgumentError extends ValidationError {
  override readonly code: string = "INVALID_ARGUMENT";
  constructor(message: string) {
    super(message, []);
  }
}

export class NotFoundError extends HoldfastError {
  readonly code = "NOT_FOUND";
  readonly retryable = false;
  constructor(
    readonly resource: string,
    readonly id: string,
    readonly known?: readonly string[],
  ) {
    super(`${resource} '${id}' not found`);
  }
}

export class ConflictError extends HoldfastError {
  readonly code: string = "CONFLICT";
  readonly retryable = false;
}

/** A transient failure: the same request may succeed after `retryAfterMs`. */
export class RetryableError extends HoldfastError {
  readonly code: string = "RETRYABLE";
  readonly retryable = true;
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** Thrown by `assert`: a broken invariant, a bug in Holdfast. Never catch it to carry on. */
export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}
