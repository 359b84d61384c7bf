import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { buildConsole } from "../support/console-build.js";

const CHROMIUM = "/usr/bin/chromium";
export const SHOTS = new URL("../../test-results/console/", import.meta.url).pathname;

/** The console built into a temp directory, for a test server to serve. */
export function builtConsole(): { dir: string; remove: () => void } {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  mkdirSync(SHOTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), "holdfast-console-"));
  buildConsole(dir);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Debian's Chromium, headless, with a page that holds the token for the tab (as the token
 * prompt would) and fails the test on any request to another origin (offline from the server).
 */
export async function openConsole(
  serverUrl: string,
  token: string,
): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.route(
    (url) => !url.href.startsWith(serverUrl),
    (route) => {
      throw new Error(`the console fetched ${route.request().url()}`);
    },
  );
  await page.goto(`${serverUrl}/console/`);
  await page.evaluate((t) => sessionStorage.setItem("holdfast.token", t), token);
  await page.reload();
  return { browser, page };
}

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** The API as a test sees it, with the console's token. */
export function apiAs(serverUrl: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${serverUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
    return response.json();
  };
}
