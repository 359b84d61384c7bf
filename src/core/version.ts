import { readFileSync } from "node:fs";

function readVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  const pkg = JSON.parse(readFileSync(url, "utf8")) as { version?: unknown };
  return typeof pkg.version === "string" ? pkg.version : "0.0.0";
}

/** The version of this Holdfast build, from package.json. */
export const VERSION = readVersion();
