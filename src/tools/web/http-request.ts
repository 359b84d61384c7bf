import { httpRequestTool } from "../builtin/workspace-tools.js";
import { failure, implementTool, success, type ToolImplementation } from "../tool.js";
import type { WebClient, WebResponse } from "./guarded-fetch.js";
import { bodyKind, decodeText } from "./read-body.js";
import { USER_AGENT } from "./web-fetch.js";
import { capOutput, type WebSettings } from "./web-settings.js";

/** Headers the HTTP client sets itself; a model setting them would only confuse the request. */
const RESERVED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection"]);
/** Response headers not shown to the model: they carry session secrets. */
const HIDDEN_HEADERS = new Set(["set-cookie", "set-cookie2"]);

/**
 * `http_request`: any method through the guarded client; any status is a result the model reads.
 * Not idempotent: a POST in flight at a crash must not be sent twice, so the loop commits the
 * call as started and, after a crash, tells the model the outcome is unknown. GET and HEAD would
 * be safe to repeat, but the flag is per tool, not per call.
 */
export function createHttpRequest(client: WebClient, settings: WebSettings): ToolImplementation {
  return implementTool(
    httpRequestTool,
    { idempotent: false, timeoutMs: settings.timeoutMs + 2_000 },
    async ({ method, url, headers, body }, context) => {
      const reserved = Object.keys(headers ?? {}).find((h) =>
        RESERVED_HEADERS.has(h.toLowerCase()),
      );
      if (reserved) return failure(`http_request: the '${reserved}' header is set by the client`);
      if (body !== undefined && (method === "GET" || method === "HEAD"))
        return failure(`http_request: a ${method} request cannot have a body`);
      const outcome = await client.request(
        {
          method,
          url: url.trim(),
          headers: { "user-agent": USER_AGENT, ...headers },
          ...(body === undefined ? {} : { body }),
        },
        context.signal,
      );
      if (!outcome.ok) return failure(`http_request ${method} ${url}: ${outcome.error}`);
      return success(describeResponse(outcome.response, settings.maxBytes));
    },
  );
}

function describeResponse(response: WebResponse, maxBytes: number): string {
  const lines = [`HTTP ${response.status} ${response.statusText}`.trim(), `URL: ${response.url}`];
  for (const [name, value] of response.headers) {
    if (!HIDDEN_HEADERS.has(name)) lines.push(`${name}: ${value}`);
  }
  const type = response.headers.get("content-type");
  const size = `${response.body.length}${response.truncated ? "+" : ""} bytes`;
  let body: string;
  if (response.body.length === 0) body = "(empty body)";
  else if (bodyKind(type, response.body) === "binary") body = `(binary body: ${size}, not shown)`;
  else body = decodeText(type, response.body);
  const cut = response.truncated ? `\n\n[the body was cut at ${maxBytes} bytes]` : "";
  return capOutput(`${lines.join("\n")}\n\n${body}${cut}`);
}
