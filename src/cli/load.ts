import type { HoldfastConfig } from "../config/config-file.js";
import { findConfigPath, loadConfig } from "../config/load-config.js";
import type { FieldError } from "../core/errors.js";

/** Prints field errors one per line, each with the file and path it belongs to. */
export function printErrors(
  file: string | null,
  errors: readonly FieldError[],
  out = console.error,
) {
  for (const error of errors) out(`${file ?? "config"}: ${error.path}: ${error.message}`);
  out(`${errors.length} error${errors.length === 1 ? "" : "s"}`);
}

/** The configuration the command runs with; on errors, prints them and exits 1. */
export function loadConfigOrExit(configFlag: string | undefined): {
  config: HoldfastConfig;
  path: string | null;
} {
  const path = findConfigPath(configFlag, process.env, process.cwd());
  const result = loadConfig(path);
  if (!result.ok) {
    printErrors(path, result.errors);
    process.exit(1);
  }
  return { config: result.config, path };
}
