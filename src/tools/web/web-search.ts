import { webSearchTool } from "../builtin/workspace-tools.js";
import { failure, implementTool, success, type ToolImplementation } from "../tool.js";
import { readLimited } from "./read-body.js";
import { SEARCH_WIRES, type SearchHit } from "./search-providers.js";
import { capOutput, type SearchSettings, type WebSettings } from "./web-settings.js";

/**
 * `web_search` through the configured provider. The provider's URL is the operator's choice, not
 * the model's, so it is not subject to the address guard: a SearXNG on the same host or network
 * is the usual setup. Idempotent: a search changes nothing.
 */
export function createWebSearch(search: SearchSettings, settings: WebSettings): ToolImplementation {
  const wire = SEARCH_WIRES[search.provider];
  return implementTool(
    webSearchTool,
    { idempotent: true, timeoutMs: settings.timeoutMs + 2_000 },
    async ({ query }, context) => {
      if (query.trim() === "") return failure("web_search: the query is empty");
      const call = wire.call(search, query.trim());
      const deadline = AbortSignal.timeout(settings.timeoutMs);
      const label = `web_search (${search.provider})`;
      let status: number;
      let bytes: Uint8Array;
      try {
        const { fetch } = await import("undici");
        const response = await fetch(call.url, {
          ...call.init,
          signal: AbortSignal.any([context.signal, deadline]),
        });
        status = response.status;
        bytes = (await readLimited(response.body, settings.maxBytes)).bytes;
        if (!response.ok) {
          const hint = wire.hint(status);
          return failure(`${label}: the provider answered ${status}${hint ? ` (${hint})` : ""}`);
        }
      } catch (error) {
        if (deadline.aborted) return failure(`${label}: timed out after ${settings.timeoutMs} ms`);
        return failure(`${label}: the provider cannot be reached: ${describe(error, search)}`);
      }
      return readAnswer(bytes, search, label);
    },
  );
}

function readAnswer(bytes: Uint8Array, search: SearchSettings, label: string) {
  let parsed: { hits: SearchHit[]; answer?: string };
  try {
    parsed = SEARCH_WIRES[search.provider].parse(JSON.parse(Buffer.from(bytes).toString("utf8")));
  } catch {
    return failure(`${label}: the provider's answer is not in the expected JSON format`);
  }
  const hits = parsed.hits.slice(0, search.maxResults);
  if (hits.length === 0 && !parsed.answer) return success("No results.");
  const lines = parsed.answer ? [`Answer: ${parsed.answer}`, ""] : [];
  hits.forEach((hit, i) => {
    lines.push(`${i + 1}. ${hit.title || "(no title)"}`, `   ${hit.url}`);
    if (hit.snippet) lines.push(`   ${hit.snippet}`);
  });
  return success(capOutput(lines.join("\n")));
}

/** The innermost cause of a fetch failure, with the API key (if any) never in it. */
function describe(error: unknown, search: SearchSettings): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  const message = current instanceof Error ? current.message : String(current);
  return search.apiKey ? message.split(search.apiKey).join("[key]") : message;
}
