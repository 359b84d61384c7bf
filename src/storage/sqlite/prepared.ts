import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { storageError } from "./rows.js";

/**
 * A module's named SQL statements on one connection, prepared on first use, and its writes as
 * one synchronous `BEGIN IMMEDIATE` transaction each, so none stays open between turns of the
 * event loop (which group commit relies on). Errors come out as the store's errors.
 */
export class PreparedStatements<Name extends string> {
  private readonly prepared = new Map<Name, StatementSync>();

  constructor(
    private readonly db: DatabaseSync,
    private readonly sql: Readonly<Record<Name, string>>,
  ) {}

  statement(name: Name): StatementSync {
    let statement = this.prepared.get(name);
    if (!statement) {
      statement = this.db.prepare(this.sql[name]);
      this.prepared.set(name, statement);
    }
    return statement;
  }

  run(name: Name, ...params: SQLInputValue[]) {
    return this.statement(name).run(...params);
  }

  get(name: Name, ...params: SQLInputValue[]) {
    return this.statement(name).get(...params);
  }

  all(name: Name, ...params: SQLInputValue[]) {
    return this.statement(name).all(...params);
  }

  /** Runs `work` in one transaction: all of it is written, or none. */
  write<T>(work: () => T): T {
    try {
      this.db.exec("BEGIN IMMEDIATE");
    } catch (error) {
      throw storageError(error, undefined);
    }
    try {
      const result = work();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw storageError(error, undefined);
    }
  }
}
