import type { SQLOutputValue, StatementSync } from "node:sqlite";
import { z } from "zod";
import { ConflictError, NotFoundError, RetryableError } from "../../core/errors.js";
import { TimerRecord } from "../../records/agent-record.js";
import { type MessageHit, Passage } from "../../records/memory-records.js";
import { READABLE_SESSION_VERSIONS, SessionState } from "../../records/session-state.js";
import type { PageQuery } from "../store.js";
import { CorruptRowError, checkRow, decodeRow } from "../store-rows.js";

type Row = Record<string, SQLOutputValue>;

/** A column that must be text. */
export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw new CorruptRowError(`column '${column}' is not text`);
  return value;
}

/** The JSON `body` column of each row, decoded and validated. */
export function bodies<S extends z.ZodType>(rows: readonly Row[], schema: S, what: string) {
  return rows.map((row) => decodeRow(schema, text(row, "body"), what));
}

export function body<S extends z.ZodType>(row: Row | undefined, schema: S, what: string) {
  return row === undefined ? null : decodeRow(schema, text(row, "body"), what);
}

export function passageOf(row: Row): Passage {
  const tags = decodeRow(z.array(z.string()), text(row, "tags"), "passage tags");
  return checkRow(
    Passage,
    { id: row.id, text: row.text, tags, created_at_ms: row.created_at_ms },
    "passage",
  );
}

export function timerOf(row: Row): TimerRecord {
  return checkRow(
    TimerRecord,
    { agent_id: row.agent_id, kind: row.kind, due_at_ms: row.due_at_ms },
    "timer",
  );
}

const HitRole = z.enum(["user", "assistant", "tool"]);

export function hitOf(row: Row): MessageHit {
  return {
    id: text(row, "id"),
    role: checkRow(HitRole, row.role, "message role"),
    text: text(row, "text"),
    created_at_ms: Date.parse(text(row, "created_at")),
  };
}

export function sessionOf(row: Row | undefined): SessionState | null {
  if (row === undefined) return null;
  if (typeof row.version !== "number" || !READABLE_SESSION_VERSIONS.includes(row.version)) {
    throw new CorruptRowError(`session version ${String(row.version)} is not readable`);
  }
  return decodeRow(SessionState, text(row, "body"), "session");
}

/** The largest `seq` a row can have: an open upper bound. */
const NO_UPPER_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * The exclusive `seq` bounds of a page and its statement, or null when a cursor names no row
 * of the list (an unknown cursor yields an empty page).
 */
export function pageBounds(
  page: PageQuery,
  seqOf: (id: string) => number | null,
): { lower: number; upper: number; limit: number } | null {
  const limit = Math.floor(page.limit);
  if (!(limit > 0)) return null;
  const after = page.after === undefined ? undefined : seqOf(page.after);
  const before = page.before === undefined ? undefined : seqOf(page.before);
  if (after === null || before === null) return null;
  return page.order === "asc"
    ? { lower: after ?? 0, upper: before ?? NO_UPPER_BOUND, limit }
    : { lower: before ?? 0, upper: after ?? NO_UPPER_BOUND, limit };
}

/** The `seq` of the row a statement finds, or null. */
export function seqFrom(statement: StatementSync, ...params: (string | null)[]): number | null {
  const seq = statement.get(...params)?.seq;
  return typeof seq === "number" ? seq : null;
}

export function changed(result: { changes: number | bigint }): boolean {
  return Number(result.changes) > 0;
}

interface SqliteError {
  errcode: number;
  errstr?: string;
  message: string;
}

function isSqliteError(error: unknown): error is SqliteError {
  return error instanceof Error && typeof (error as Partial<SqliteError>).errcode === "number";
}

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_CONSTRAINT_FOREIGNKEY = 787;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

/**
 * Turns SQLite's errors into Holdfast's: a busy database is retryable, a unique key taken is a
 * conflict, a missing agent (the only foreign key) is not found. Anything else is a bug and
 * passes through unchanged.
 */
export function storageError(error: unknown, agentId: string | undefined): unknown {
  if (!isSqliteError(error)) return error;
  const primary = error.errcode & 0xff;
  if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) {
    return new RetryableError(`storage busy: ${error.message}`, 50);
  }
  if (error.errcode === SQLITE_CONSTRAINT_FOREIGNKEY && agentId !== undefined) {
    return new NotFoundError("agent", agentId);
  }
  if (
    error.errcode === SQLITE_CONSTRAINT_UNIQUE ||
    error.errcode === SQLITE_CONSTRAINT_PRIMARYKEY
  ) {
    return new ConflictError(error.message, { cause: error });
  }
  return error;
}
