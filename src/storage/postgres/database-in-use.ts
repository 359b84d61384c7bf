import { HoldfastError } from "../../core/errors.js";

/** Who holds a schema, as PostgreSQL reports the holder's connection. */
export interface DatabaseLockHolder {
  application: string;
  clientAddress: string | null;
  since: string;
}

/** A second server asked for a schema another server writes (no `pg` here: the CLI checks for it). */
export class DatabaseInUseError extends HoldfastError {
  readonly code = "DATABASE_IN_USE";
  readonly retryable = false;
  constructor(
    readonly schema: string,
    readonly holder: DatabaseLockHolder | null,
  ) {
    const who = holder
      ? `${holder.application || "a client"}${holder.clientAddress ? ` from ${holder.clientAddress}` : ""} (connected ${holder.since})`
      : "another server";
    super(
      `PostgreSQL schema '${schema}' is in use by ${who}; stop it or choose another database or schema`,
    );
  }
}
