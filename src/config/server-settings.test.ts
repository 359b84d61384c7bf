import { describe, expect, it } from "vitest";
import { resolveServerSettings, type SettingFlags } from "./server-settings.js";

const EMBEDDED = {
  engine: "embedded",
  restateIngress: "http://127.0.0.1:8080",
  restateAdmin: "http://127.0.0.1:9070",
};

describe("server settings", () => {
  it("defaults to 127.0.0.1:8283 with ./data, durable to the disk", () => {
    expect(resolveServerSettings({}, {}, {}, null, "/srv")).toEqual({
      ok: true,
      settings: {
        host: "127.0.0.1",
        port: 8283,
        dataDir: "/srv/data",
        durability: "full",
        pgPoolSize: 10,
        ...EMBEDDED,
      },
    });
  });

  it("takes a flag over env, env over the file, the file over the default", () => {
    const file = { host: "file-host", port: 3000, data_dir: "file-data" };
    const env = {
      HOLDFAST_HOST: "env-host",
      HOLDFAST_PORT: "4000",
      HOLDFAST_DATA_DIR: "/env-data",
    };
    const flags = { host: "flag-host", port: "5000", dataDir: "flag-data" };
    const at = (f: SettingFlags, e: NodeJS.ProcessEnv) =>
      resolveServerSettings(f, e, file, "/etc/hf/holdfast.yaml", "/srv");
    expect(at(flags, env)).toEqual({
      ok: true,
      settings: {
        host: "flag-host",
        port: 5000,
        dataDir: "/srv/flag-data",
        durability: "full",
        pgPoolSize: 10,
        ...EMBEDDED,
      },
    });
    expect(at({}, env)).toEqual({
      ok: true,
      settings: {
        host: "env-host",
        port: 4000,
        dataDir: "/env-data",
        durability: "full",
        pgPoolSize: 10,
        ...EMBEDDED,
      },
    });
    expect(at({}, {})).toEqual({
      ok: true,
      settings: {
        host: "file-host",
        port: 3000,
        dataDir: "/etc/hf/file-data",
        durability: "full",
        pgPoolSize: 10,
        ...EMBEDDED,
      },
    });
  });

  it("rejects a port that is not a number in range, naming where it came from", () => {
    expect(resolveServerSettings({ port: "http" }, {}, {}, null, "/")).toEqual({
      ok: false,
      errors: [{ path: "--port", message: "'http' is not a port (0-65535)" }],
    });
    expect(resolveServerSettings({}, { HOLDFAST_PORT: "70000" }, {}, null, "/")).toMatchObject({
      ok: false,
      errors: [{ path: "HOLDFAST_PORT" }],
    });
  });

  it("takes the durability from a flag, then env, then the file (issue #16)", () => {
    const durability = (flags: SettingFlags, env: NodeJS.ProcessEnv, file = {}) => {
      const result = resolveServerSettings(flags, env, file, null, "/");
      return result.ok ? result.settings.durability : result.errors;
    };
    expect(durability({}, {}, { durability: "normal" })).toBe("normal");
    expect(durability({}, { HOLDFAST_DURABILITY: "normal" }, {})).toBe("normal");
    expect(durability({ durability: "full" }, { HOLDFAST_DURABILITY: "normal" })).toBe("full");
    expect(durability({}, { HOLDFAST_DURABILITY: "full" }, { durability: "normal" })).toBe("full");
  });

  it("rejects a durability that is not full or normal, naming where it came from", () => {
    expect(resolveServerSettings({ durability: "fast" }, {}, {}, null, "/")).toEqual({
      ok: false,
      errors: [{ path: "--durability", message: "'fast' is not a durability (full or normal)" }],
    });
    expect(resolveServerSettings({}, { HOLDFAST_DURABILITY: "FULL" }, {}, null, "/")).toMatchObject(
      { ok: false, errors: [{ path: "HOLDFAST_DURABILITY" }] },
    );
  });

  it("takes a PostgreSQL URL from a flag, then env, then the file; none means SQLite (issue #11)", () => {
    const pgUrl = (flags: SettingFlags, env: NodeJS.ProcessEnv, file = {}) => {
      const result = resolveServerSettings(flags, env, file, null, "/");
      return result.ok ? result.settings.pgUrl : result.errors;
    };
    const file = { pg_url: "postgres://file/db" };
    expect(pgUrl({}, {})).toBeUndefined();
    expect(pgUrl({}, {}, file)).toBe("postgres://file/db");
    expect(pgUrl({}, { HOLDFAST_PG_URL: "postgresql://env/db" }, file)).toBe("postgresql://env/db");
    expect(pgUrl({ pgUrl: "postgres://flag/db" }, { HOLDFAST_PG_URL: "postgres://env/db" })).toBe(
      "postgres://flag/db",
    );
  });

  it("rejects a URL that is not PostgreSQL's without repeating it (it may hold a password)", () => {
    expect(
      resolveServerSettings({}, { HOLDFAST_PG_URL: "mysql://u:secret@h/db" }, {}, null, "/"),
    ).toEqual({
      ok: false,
      errors: [
        {
          path: "HOLDFAST_PG_URL",
          message: "not a PostgreSQL URL (postgres://user:password@host:port/database)",
        },
      ],
    });
  });

  it("takes the PostgreSQL pool size from a flag, env or the file, and rejects a bad one", () => {
    const size = (flags: SettingFlags, env: NodeJS.ProcessEnv, file = {}) => {
      const result = resolveServerSettings(flags, env, file, null, "/");
      return result.ok ? result.settings.pgPoolSize : result.errors;
    };
    expect(size({}, {}, { pg_pool_size: 4 })).toBe(4);
    expect(size({}, { HOLDFAST_PG_POOL_SIZE: "20" }, { pg_pool_size: 4 })).toBe(20);
    expect(size({ pgPoolSize: "0" }, {})).toEqual([
      { path: "--pg-pool-size", message: "'0' is not a pool size (1-1000)" },
    ]);
  });

  it("takes the engine and Restate's addresses from a flag, env or the file (issue #11)", () => {
    const pg = { pgUrl: "postgres://h/db" };
    const file = { engine: "restate" as const, restate_ingress: "http://file:8080" };
    const env = { HOLDFAST_RESTATE_ADMIN: "http://env:9070" };
    const flags = { ...pg, restateIngress: "http://flag:8080" };
    const resolved = resolveServerSettings(flags, env, file, null, "/srv");
    expect(resolved).toMatchObject({
      ok: true,
      settings: {
        engine: "restate",
        restateIngress: "http://flag:8080",
        restateAdmin: "http://env:9070",
      },
    });
    expect(resolveServerSettings(pg, {}, file, null, "/srv")).toMatchObject({
      settings: { restateIngress: "http://file:8080" },
    });
  });

  it("refuses the restate engine without PostgreSQL, and an engine or URL it does not know", () => {
    expect(resolveServerSettings({ engine: "restate" }, {}, {}, null, "/srv")).toMatchObject({
      ok: false,
      errors: [{ path: "--engine", message: expect.stringMatching(/--pg-url/) }],
    });
    const bad = { engine: "cluster", restateIngress: "ftp://x" };
    expect(
      resolveServerSettings(bad, { HOLDFAST_RESTATE_ADMIN: "nope" }, {}, null, "/srv"),
    ).toMatchObject({
      ok: false,
      errors: [
        { path: "--engine" },
        { path: "--restate-ingress" },
        { path: "HOLDFAST_RESTATE_ADMIN" },
      ],
    });
  });
});
