import { dirname, resolve } from "node:path";
import { z } from "zod";
import type { FieldError } from "../core/errors.js";
import { DEFAULT_DURABILITY, Durability } from "../storage/durability.js";
import type { ServerSection } from "./config-file.js";

/** Where the server listens, keeps its data and how durably, resolved from every source. */
export interface ServerSettings {
  host: string;
  port: number;
  dataDir: string;
  durability: Durability;
  /** Keep the data in this PostgreSQL database instead of SQLite in `dataDir`. */
  pgUrl?: string;
  /** Connections to PostgreSQL kept open at most. */
  pgPoolSize: number;
  /** `embedded` (agents run in this process) or `restate` (on workers, through Restate). */
  engine: EngineKind;
  /** Restate's ingress and admin API (the restate engine and `holdfast worker`). */
  restateIngress: string;
  restateAdmin: string;
}

export const EngineKind = z.enum(["embedded", "restate"]);
export type EngineKind = z.infer<typeof EngineKind>;
export const DEFAULT_RESTATE_INGRESS = "http://127.0.0.1:8080";
export const DEFAULT_RESTATE_ADMIN = "http://127.0.0.1:9070";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8283;
export const DEFAULT_DATA_DIR = "data";
export const DEFAULT_PG_POOL_SIZE = 10;

/** Settings given on the command line; absent ones fall through to env, file, default. */
export interface SettingFlags {
  host?: string | undefined;
  port?: string | undefined;
  dataDir?: string | undefined;
  durability?: string | undefined;
  pgUrl?: string | undefined;
  pgPoolSize?: string | undefined;
  engine?: string | undefined;
  restateIngress?: string | undefined;
  restateAdmin?: string | undefined;
}

const Port = z.coerce.number().int().min(0).max(65_535);
const PoolSize = z.coerce.number().int().min(1).max(1_000);
const PgUrl = z.string().regex(/^postgres(ql)?:\/\/\S+$/);
const HttpUrl = z.string().regex(/^https?:\/\/\S+$/);

/**
 * Resolves each setting from, in order: a flag, an env variable (`HOLDFAST_HOST`,
 * `HOLDFAST_PORT`, `HOLDFAST_DATA_DIR`, `HOLDFAST_DURABILITY`, `HOLDFAST_PG_URL`, `HOLDFAST_PG_POOL_SIZE`,
 * `HOLDFAST_ENGINE`, `HOLDFAST_RESTATE_INGRESS`, `HOLDFAST_RESTATE_ADMIN`), the config
 * file's `server:` section, the default.
 * A relative data directory from the config file is relative to the file, others to `cwd`.
 */
export function resolveServerSettings(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
  file: ServerSection,
  configPath: string | null,
  cwd: string,
): { ok: true; settings: ServerSettings } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const port = parseGiven(
    Port,
    [
      ["--port", flags.port],
      ["HOLDFAST_PORT", env.HOLDFAST_PORT],
    ],
    file.port ?? DEFAULT_PORT,
    (value) => `'${value}' is not a port (0-65535)`,
    errors,
  );
  const durability = parseGiven(
    Durability,
    [
      ["--durability", flags.durability],
      ["HOLDFAST_DURABILITY", env.HOLDFAST_DURABILITY],
    ],
    file.durability ?? DEFAULT_DURABILITY,
    (value) => `'${value}' is not a durability (full or normal)`,
    errors,
  );
  const pgUrl = parseGiven(
    PgUrl.optional(),
    [
      ["--pg-url", flags.pgUrl],
      ["HOLDFAST_PG_URL", env.HOLDFAST_PG_URL],
    ],
    file.pg_url,
    () => "not a PostgreSQL URL (postgres://user:password@host:port/database)",
    errors,
  );
  const pgPoolSize = parseGiven(
    PoolSize,
    [
      ["--pg-pool-size", flags.pgPoolSize],
      ["HOLDFAST_PG_POOL_SIZE", env.HOLDFAST_PG_POOL_SIZE],
    ],
    file.pg_pool_size ?? DEFAULT_PG_POOL_SIZE,
    (value) => `'${value}' is not a pool size (1-1000)`,
    errors,
  );
  const engine = parseGiven(
    EngineKind,
    [
      ["--engine", flags.engine],
      ["HOLDFAST_ENGINE", env.HOLDFAST_ENGINE],
    ],
    file.engine ?? "embedded",
    (value) => `'${value}' is not an engine (embedded or restate)`,
    errors,
  );
  const url = (flag: string, envName: string, given: string | undefined, fallback: string) =>
    parseGiven(
      HttpUrl,
      [
        [flag, given],
        [envName, env[envName]],
      ],
      fallback,
      (value) => `'${value}' is not an http(s) URL`,
      errors,
    );
  const restateIngress = url(
    "--restate-ingress",
    "HOLDFAST_RESTATE_INGRESS",
    flags.restateIngress,
    file.restate_ingress ?? DEFAULT_RESTATE_INGRESS,
  );
  const restateAdmin = url(
    "--restate-admin",
    "HOLDFAST_RESTATE_ADMIN",
    flags.restateAdmin,
    file.restate_admin ?? DEFAULT_RESTATE_ADMIN,
  );
  if (engine === "restate" && pgUrl === undefined) {
    errors.push({
      path: "--engine",
      message:
        "the restate engine keeps its data in PostgreSQL: give --pg-url (or HOLDFAST_PG_URL)",
    });
  }
  const fileDir =
    file.data_dir && configPath ? resolve(dirname(configPath), file.data_dir) : undefined;
  const dataDir = resolve(
    cwd,
    flags.dataDir || env.HOLDFAST_DATA_DIR || fileDir || DEFAULT_DATA_DIR,
  );
  const host = flags.host || env.HOLDFAST_HOST || file.host || DEFAULT_HOST;
  if (errors.length > 0) return { ok: false, errors };
  const settings: ServerSettings = {
    host,
    port,
    dataDir,
    durability,
    pgPoolSize,
    engine,
    restateIngress,
    restateAdmin,
  };
  if (pgUrl !== undefined) settings.pgUrl = pgUrl;
  return { ok: true, settings };
}

/**
 * The value of the first source given (a flag, then an env variable), parsed; `fallback` when
 * none is. A bad value is reported at the name of the source it came from.
 */
function parseGiven<T>(
  schema: z.ZodType<T>,
  sources: readonly [name: string, value: string | undefined][],
  fallback: T,
  explain: (value: string) => string,
  errors: FieldError[],
): T {
  const given = sources.find(([, value]) => value !== undefined && value !== "");
  if (!given) return fallback;
  const [name, value = ""] = given;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  errors.push({ path: name, message: explain(value) });
  return fallback;
}
