import { z } from "zod";
import {
  ConflictError,
  NotFoundError,
  RetryableError,
  ValidationError,
} from "../../core/errors.js";
import { TimerRecord } from "../../records/agent-record.js";
import { type MessageHit, Passage } from "../../records/memory-records.js";
import { READABLE_SESSION_VERSIONS, SessionState } from "../../records/session-state.js";
import { CorruptRowError, checkRow } from "../store-rows.js";

/** A row as node-postgres gives it: JSONB already parsed, bigint as text. */
export type Row = Record<string, unknown>;

/** The `body` (JSONB) of each row, validated. */
export function bodies<S extends z.ZodType>(rows: readonly Row[], schema: S, what: string) {
  return rows.map((row) => checkRow(schema, row.body, what));
}

export function body<S extends z.ZodType>(row: Row | undefined, schema: S, what: string) {
  return row === undefined ? null : checkRow(schema, row.body, what);
}

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== "string") throw new CorruptRowError(`column '${column}' is not text`);
  return value;
}

/** A bigint column (node-postgres reads int8 as text) as a number; ids stay far below 2^53. */
export function seqOf(row: Row | undefined, column = "seq"): number | null {
  const value = row?.[column];
  return value === undefined || value === null ? null : Number(value);
}

export function passageOf(row: Row): Passage {
  const tags = checkRow(z.array(z.string()), row.tags, "passage tags");
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
  return checkRow(SessionState, row.body, "session");
}

interface PostgresError {
  code: string;
  message: string;
}

function isPostgresError(error: unknown): error is PostgresError {
  return error instanceof Error && typeof (error as Partial<PostgresError>).code === "string";
}

/** SQLSTATE classes and codes that a later attempt may get past. */
const RETRYABLE_CLASSES = ["08", "53", "57"];
const RETRYABLE_CODES = ["40001", "40P01", "55P03"];

/**
 * Turns PostgreSQL's errors into Holdfast's: a unique key taken is a conflict, a missing agent
 * (the only foreign key) is not found, text PostgreSQL cannot store (a NUL character) is
 * invalid input, and a lost connection, serialization failure, deadlock or server shutting
 * down is retryable. Anything else is a bug and passes through unchanged.
 */
export function storageError(error: unknown, agentId: string | undefined): unknown {
  if (!isPostgresError(error)) return error;
  const { code } = error;
  if (code === "23505") return new ConflictError(error.message, { cause: error });
  if (code === "23503" && agentId !== undefined) return new NotFoundError("agent", agentId);
  if (code === "22P05" || code === "22021") {
    return new ValidationError(`text PostgreSQL cannot store: ${error.message}`, [
      { path: "text", message: error.message },
    ]);
  }
  const lost = code.startsWith("ECONN") || code === "ETIMEDOUT";
  if (lost || RETRYABLE_CODES.includes(code) || RETRYABLE_CLASSES.includes(code.slice(0, 2))) {
    return new RetryableError(`storage unavailable: ${error.message}`, 100);
  }
  return error;
}
