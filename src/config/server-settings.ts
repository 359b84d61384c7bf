import { dirname, resolve } from "node:path";
import { z } from "zod";
import type { FieldError } from "../core/errors.js";
import type { ServerSection } from "./config-file.js";

/** Where the server listens and keeps its data, resolved from every source. */
export interface ServerSettings {
  host: string;
  port: number;
  dataDir: string;
}

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8283;
export const DEFAULT_DATA_DIR = "data";

/** Settings given on the command line; absent ones fall through to env, file, default. */
export interface SettingFlags {
  host?: string | undefined;
  port?: string | undefined;
  dataDir?: string | undefined;
}

const Port = z.coerce.number().int().min(0).max(65_535);

/**
 * Resolves each setting from, in order: a flag, an env variable (`HOLDFAST_HOST`,
 * `HOLDFAST_PORT`, `HOLDFAST_DATA_DIR`), the config file's `server:` section, the default.
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
  const portSources: [string, string | undefined][] = [
    ["--port", flags.port],
    ["HOLDFAST_PORT", env.HOLDFAST_PORT],
  ];
  let port = file.port ?? DEFAULT_PORT;
  const given = portSources.find(([, value]) => value !== undefined && value !== "");
  if (given) {
    const parsed = Port.safeParse(given[1]);
    if (parsed.success) port = parsed.data;
    else errors.push({ path: given[0], message: `'${given[1]}' is not a port (0-65535)` });
  }
  const fileDir =
    file.data_dir && configPath ? resolve(dirname(configPath), file.data_dir) : undefined;
  const dataDir = resolve(
    cwd,
    flags.dataDir || env.HOLDFAST_DATA_DIR || fileDir || DEFAULT_DATA_DIR,
  );
  const host = flags.host || env.HOLDFAST_HOST || file.host || DEFAULT_HOST;
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, settings: { host, port, dataDir } };
}
