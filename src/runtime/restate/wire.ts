import {
  ConflictError,
  type FieldError,
  HoldfastError,
  InvalidApprovalError,
  InvalidArgumentError,
  NotFoundError,
  RetryableError,
  ValidationError,
} from "../../core/errors.js";
import { ModelError, type ModelErrorKind } from "../../llm/model-error.js";
import { StaleChangeError } from "../../records/agent-change.js";
import { BusyError } from "../busy-error.js";
import { PendingApprovalError } from "../outcomes.js";
import { UnwantedTaskError } from "../sub-agents.js";

/**
 * A Holdfast error as it crosses from a worker to the API process. Restate retries a handler
 * that throws; an error the caller must see (bad input, not found, a conflict) is returned as
 * data instead, and rebuilt as the same class on the other side.
 */
export interface WireError {
  name: string;
  code: string;
  message: string;
  retryable: boolean;
  errors?: readonly FieldError[];
  resource?: string;
  id?: string;
  known?: readonly string[];
  pending?: string[];
  kind?: string;
  retryAfterMs?: number;
}

/** What a handler answers: its value, or the Holdfast error it met. */
export type Wire<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** Runs `work`, answering a Holdfast error as data; anything else is thrown (Restate retries). */
export async function toWire<T>(work: () => Promise<T>): Promise<Wire<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (!(error instanceof HoldfastError)) throw error;
    return { ok: false, error: wireError(error) };
  }
}

function wireError(error: HoldfastError): WireError {
  const wire: WireError = {
    name: error.name,
    code: error.code,
    message: error.message,
    retryable: error.retryable,
  };
  if (error instanceof ValidationError) wire.errors = error.errors;
  if (error instanceof NotFoundError) {
    wire.resource = error.resource;
    wire.id = error.id;
    if (error.known) wire.known = error.known;
  }
  if (error instanceof PendingApprovalError) wire.pending = error.pendingRequestIds;
  if (error instanceof ModelError) wire.kind = error.kind;
  if (error instanceof RetryableError || error instanceof ModelError) {
    if (error.retryAfterMs !== undefined) wire.retryAfterMs = error.retryAfterMs;
  }
  return wire;
}

/** The error a worker met, as the class it was thrown as (or the nearest known one). */
export function fromWire(wire: WireError): Error {
  switch (wire.name) {
    case "PendingApprovalError":
      return new PendingApprovalError(wire.pending ?? []);
    case "StaleChangeError":
      return new StaleChangeError(wire.message);
    case "UnwantedTaskError":
      return new UnwantedTaskError(wire.message);
    case "InvalidArgumentError":
      return new InvalidArgumentError(wire.message);
    case "InvalidApprovalError":
      return new InvalidApprovalError(wire.message, wire.errors ?? []);
    case "NotFoundError":
      return new NotFoundError(wire.resource ?? "resource", wire.id ?? "", wire.known);
    case "BusyError":
      return new BusyError(wire.message, wire.retryAfterMs ?? 1000);
    case "ModelError":
      return new ModelError(
        (wire.kind ?? "server") as ModelErrorKind,
        wire.message,
        wire.retryAfterMs,
      );
  }
  if (wire.errors) {
    const error = new ValidationError(wire.message, wire.errors);
    return Object.assign(error, { code: wire.code });
  }
  if (wire.retryable) return new RetryableError(wire.message, wire.retryAfterMs ?? 1000);
  return Object.assign(new ConflictError(wire.message), { code: wire.code });
}

/** The value of a handler's answer, or its error thrown. */
export function unwire<T>(answer: Wire<T>): T {
  if (answer.ok) return answer.value;
  throw fromWire(answer.error);
}
