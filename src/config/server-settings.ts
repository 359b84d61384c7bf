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
}

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
}

const Port = z.coerce.number().int().min(0).max(65_535);
const PoolSize = z.coerce.number().int().min(1).max(1_000);
const PgUrl = z.string().regex(/^postgres(ql)?:\/\/\S+$/);

/**
 * Resolves each setting from, in order: a flag, an env variable (`HOLDFAST_HOST`,
 * `HOLDFAST_PORT`, `HOLDFAST_DATA_DIR`, `HOLDFAST_DURABILITY`, `HOLDFAST_PG_URL`, `HOLDFAST_PG_POOL_SIZE`), the config
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
  const fileDir =
    file.data_dir && configPath ? resolve(dirname(configPath), file.data_dir) : undefined;
  const dataDir = resolve(
    cwd,
    flags.dataDir || env.HOLDFAST_DATA_DIR || fileDir || DEFAULT_DATA_DIR,
  );
  const host = flags.host || env.HOLDFAST_HOST || file.host || DEFAULT_HOST;
  if (errors.length > 0) return { ok: false, errors };
  const settings: ServerSettings = { host, port, dataDir, durability, pgPoolSize };
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
