import type { ToolImplementation } from "../tool.js";
import { createWebClient, type Resolve } from "./guarded-fetch.js";
import { createHttpRequest } from "./http-request.js";
import { createWebFetch } from "./web-fetch.js";
import { createWebSearch } from "./web-search.js";
import { DEFAULT_WEB_SETTINGS, type WebSettings } from "./web-settings.js";

export { refusedAddressReason } from "./address-guard.js";
export { createWebClient, type Resolve, type WebClient } from "./guarded-fetch.js";
export * from "./web-settings.js";

/**
 * The web tools that run with `settings`: `web_fetch` and `http_request` always, `web_search`
 * only with a search provider (without one, the config marks it unavailable with the reason).
 */
export function webImplementations(
  settings: WebSettings = DEFAULT_WEB_SETTINGS,
  resolve?: Resolve,
): ToolImplementation[] {
  const client = createWebClient(settings, resolve);
  const search = settings.search ? [createWebSearch(settings.search, settings)] : [];
  return [...search, createWebFetch(client, settings), createHttpRequest(client, settings)];
}
