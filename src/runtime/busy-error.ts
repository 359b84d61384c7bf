import { RetryableError } from "../core/errors.js";

/** An agent's mailbox is full: the caller should retry after a moment. */
export class BusyError extends RetryableError {
  override readonly code = "BUSY";
}
