import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { compress } from "hono/compress";
import type { AppEnv } from "./auth.js";
import { body } from "./error-response.js";

/**
 * Where `npm run build` puts the console (Vite, `console/vite.config.ts`). The same path from
 * `src/server/` (tests) and from `dist/server/` (the built server): both are two levels down.
 */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL("../../dist/console/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

/**
 * The web console: static files built by Vite, served from `dir`, gzip-compressed on the way out.
 * Any path under `/console/` that is not a file is the app itself (it routes on the hash, but a
 * reload of a deep link must still load it). `/` redirects here. The files hold no data: every
 * call the console makes goes through the API and its bearer-token auth.
 */
export function consoleRoutes(app: OpenAPIHono<AppEnv>, dir: string): void {
  const root = normalize(dir + sep);
  app.get("/", (c) => c.redirect("/console/", 302));
  app.use("/console/*", compress());
  app.get("/console/*", (c) => {
    // Relative asset paths need the trailing slash; the router (strict: false) matches both.
    const path = new URL(c.req.url).pathname;
    if (path === "/console") return c.redirect("/console/", 301);
    const index = join(root, "index.html");
    if (!existsSync(index)) {
      return c.json(
        body("NOT_FOUND", "the console is not built: run `npm run build` (it runs `vite build`)"),
        404,
      );
    }
    const wanted = normalize(join(root, decoded(path.slice("/console/".length))));
    const isFile = wanted.startsWith(root) && existsSync(wanted) && statSync(wanted).isFile();
    const file = isFile ? wanted : index;
    // Vite names every asset by its content hash, so they never change; the page itself may.
    const hashed = isFile && file.startsWith(join(root, "assets") + sep);
    return c.body(readFileSync(file), 200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
    });
  });
}

/** A malformed escape (`%zz`) names no file: the app answers it, not a 500. */
function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return "";
  }
}
