import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** One route the official client calls: its method and its path with `{}` for each parameter. */
export interface ClientRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
}

const RESOURCES = fileURLToPath(
  new URL("../../node_modules/@letta-ai/letta-client/src/resources", import.meta.url),
);

const CALL =
  /this\.(?:_client\.)?(get|post|put|patch|delete|getAPIList)\(\s*(?:path)?[`'](\/v1\/[^`']*)[`']/g;
const CLIENT = join(RESOURCES, "..", "client.ts");

/** A path with its parameters as `{}` and no trailing slash, so two spellings compare equal. */
export function normalisePath(path: string): string {
  return path
    .replace(/\$\{[^}]*\}/g, "{}")
    .replace(/\{[^}]*\}/g, "{}")
    .replace(/\/$/, "");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Every route the client's resource classes call, read from the client's own source. */
export function clientRoutes(): ClientRoute[] {
  const seen = new Map<string, ClientRoute>();
  for (const file of [...sourceFiles(RESOURCES), CLIENT]) {
    for (const match of readFileSync(file, "utf8").matchAll(CALL)) {
      const verb = match[1] === "getAPIList" ? "get" : (match[1] as string);
      const route = {
        method: verb.toUpperCase() as ClientRoute["method"],
        path: normalisePath(match[2] as string),
      };
      seen.set(`${route.method} ${route.path}`, route);
    }
  }
  return [...seen.values()].sort((a, b) =>
    `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`),
  );
}
