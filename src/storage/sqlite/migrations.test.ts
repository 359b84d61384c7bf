import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrate } from "./migrations.js";

const versions = (db: DatabaseSync) =>
  db
    .prepare("SELECT version FROM schema_migrations ORDER BY version")
    .all()
    .map((r) => r.version);

describe("SQLite migrations", () => {
  it("applies each migration once, however often it runs", () => {
    const db = new DatabaseSync(":memory:");
    const extra = [...MIGRATIONS, "CREATE TABLE extra (x INTEGER) STRICT"];
    expect(migrate(db)).toBe(MIGRATIONS.length);
    expect(migrate(db, extra)).toBe(extra.length);
    expect(migrate(db, extra)).toBe(extra.length);
    expect(versions(db)).toEqual(extra.map((_, i) => i + 1));
    db.close();
  });

  it("lands an upgrade whole or not at all: a failing migration keeps the version it had", () => {
    const db = new DatabaseSync(":memory:");
    migrate(db, MIGRATIONS.slice(0, 3));
    const broken = [...MIGRATIONS, "CREATE TABLE half (x INTEGER); SELECT * FROM nowhere"];
    expect(() => migrate(db, broken)).toThrow(/nowhere/);
    expect(versions(db)).toEqual([1, 2, 3]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'steps'").get()).toBeUndefined();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
    db.close();
  });

  it("refuses a database written by a newer schema than it knows", () => {
    const db = new DatabaseSync(":memory:");
    migrate(db, [...MIGRATIONS, "CREATE TABLE later (x INTEGER) STRICT"]);
    expect(() => migrate(db)).toThrow(/schema version/);
    db.close();
  });

  it("brings a version 1 database to version 2 with its sub-agents findable by parent", () => {
    const db = new DatabaseSync(":memory:");
    migrate(db, MIGRATIONS.slice(0, 1));
    const child = { id: "agent-c", parent_id: "agent-p" };
    db.prepare("INSERT INTO agents (id, project_id, body) VALUES (?, 'p', ?)").run(
      "agent-c",
      JSON.stringify(child),
    );
    expect(migrate(db)).toBe(MIGRATIONS.length);
    const byParent = db.prepare("SELECT id FROM agents WHERE parent_id = 'agent-p'").all();
    expect(byParent.map((row) => row.id)).toEqual(["agent-c"]);
    db.close();
  });
});
