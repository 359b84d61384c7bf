import { webFetchTool } from "../builtin/workspace-tools.js";
import { failure, implementTool, success, type ToolImplementation } from "../tool.js";
import type { WebClient, WebResponse } from "./guarded-fetch.js";
import { htmlToMarkdown } from "./html-text.js";
import { bodyKind, decodeText } from "./read-body.js";
import { capOutput, type WebSettings } from "./web-settings.js";

const ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5";

/**
 * `web_fetch`: a GET through the guarded client, the page turned into markdown. Idempotent: a
 * GET has no effect to repeat, so a call in flight at a crash may simply run again.
 */
export function createWebFetch(client: WebClient, settings: WebSettings): ToolImplementation {
  return implementTool(
    webFetchTool,
    // The client stops itself at `timeoutMs`; the loop's own timeout is a backstop just after.
    { idempotent: true, timeoutMs: settings.timeoutMs + 2_000 },
    async ({ url }, context) => {
      const outcome = await client.request(
        { method: "GET", url: url.trim(), headers: { accept: ACCEPT, "user-agent": USER_AGENT } },
        context.signal,
      );
      if (!outcome.ok) return failure(`web_fetch ${url}: ${outcome.error}`);
      return describePage(outcome.response, settings.maxBytes);
    },
  );
}

export const USER_AGENT = "Holdfast-web-tools/1 (an AI agent's fetch)";

async function describePage(response: WebResponse, maxBytes: number) {
  const type = response.headers.get("content-type");
  const kind = bodyKind(type, response.body);
  const head = [`URL: ${response.url}`, `Status: ${response.status} ${response.statusText}`.trim()];
  if (type) head.push(`Content-Type: ${type}`);
  if (kind === "binary")
    return failure(
      `web_fetch ${response.url}: the response is binary (${type ?? "unknown type"}), and ` +
        "web_fetch returns only text",
    );
  const text = decodeText(type, response.body);
  let content = text;
  if (kind === "html") {
    const page = await htmlToMarkdown(text, response.url);
    if (page.title) head.push(`Title: ${page.title}`);
    content = page.markdown;
  }
  if (response.truncated) head.push(`Note: the body was cut at ${maxBytes} bytes`);
  const output = capOutput(`${head.join("\n")}\n\n${content}`);
  // A 404 or 500 page is still read, but the call did not get what it asked for.
  return response.status >= 400 ? failure(output) : success(output);
}
