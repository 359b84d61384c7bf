import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { extname, resolve } from "node:path";
import type { FieldError } from "../core/errors.js";
import { builtinConfig, type ConfigResult, checkConfig } from "./config-file.js";

/** The names looked for in the working directory when no config path is given. */
export const DEFAULT_CONFIG_NAMES = ["holdfast.yaml", "holdfast.yml", "holdfast.json"] as const;

/**
 * Which config file to use: the one given (by flag, then `HOLDFAST_CONFIG`), else the first
 * default name present in `cwd`, else none.
 */
export function findConfigPath(
  given: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): string | null {
  const explicit = given ?? env.HOLDFAST_CONFIG;
  if (explicit) return resolve(cwd, explicit);
  const found = DEFAULT_CONFIG_NAMES.map((name) => resolve(cwd, name)).find((p) => existsSync(p));
  return found ?? null;
}

/** Reads and checks a config file; with no path, the built-in configuration. */
export function loadConfig(path: string | null): ConfigResult {
  if (path === null) return { ok: true, config: builtinConfig() };
  const parsed = readDocument(path);
  return parsed.ok ? checkConfig(parsed.document) : parsed;
}

type Parsed = { ok: true; document: unknown } | { ok: false; errors: FieldError[] };

/** Parses YAML, or JSON for a `.json` file, reporting syntax errors by line and column. */
function readDocument(path: string): Parsed {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, errors: [{ path: "(file)", message: `cannot read ${path}: ${reason}` }] };
  }
  if (extname(path) === ".json") {
    try {
      return { ok: true, document: JSON.parse(text) };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, errors: [{ path: "(syntax)", message: reason }] };
    }
  }
  // The YAML parser loads with the first config file read: a server on defaults never needs it.
  const { parseDocument } = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    const errors = doc.errors.map((e) => ({
      path: `(line ${e.linePos?.[0]?.line ?? "?"}, column ${e.linePos?.[0]?.col ?? "?"})`,
      message: e.message.split("\n")[0] ?? e.message,
    }));
    return { ok: false, errors };
  }
  return { ok: true, document: doc.toJS() };
}
