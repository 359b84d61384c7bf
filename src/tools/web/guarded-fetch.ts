import { promises as dns, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import type { Agent, fetch as undiciFetch } from "undici";
import { addressPolicy } from "./address-guard.js";
import { readLimited } from "./read-body.js";
import type { WebSettings } from "./web-settings.js";

/** Resolves a host name to all its addresses (`dns.lookup` by default; tests map names). */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

/** One request as the tools make it. */
export interface WebRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** A response read within the limits. */
export interface WebResponse {
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly body: Uint8Array;
  /** The body was longer than `maxBytes` and was cut there. */
  readonly truncated: boolean;
}

export type WebOutcome = { ok: true; response: WebResponse } | { ok: false; error: string };

/** A refusal by the address guard, raised inside DNS lookup so that it ends the connection. */
class AddressRefused extends Error {
  constructor(host: string, address: string, reason: string) {
    super(`refused to connect to ${host} (${address}): it is ${reason}`);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * An HTTP client for model-chosen URLs: only http(s), every address checked by the guard (IP
 * literals before connecting, host names in the DNS lookup the connection itself uses, so the
 * address checked is the address reached), redirects followed by hand and each target checked
 * again, the body cut at `maxBytes`, the whole call bounded by `timeoutMs` and `signal`.
 */
export function createWebClient(settings: WebSettings, resolve: Resolve = systemResolve) {
  const refusal = addressPolicy(settings.allowPrivateAddresses, settings.allowedNetworks);
  // undici loads with the first request: a server whose agents fetch nothing never pays for it.
  let client: Promise<Pick<Hop, "dispatcher" | "fetch">> | undefined;
  const connect = () =>
    (client ??= import("undici").then(({ Agent, fetch }) => ({
      fetch,
      dispatcher: new Agent({
        connect: { lookup: guardedLookup(resolve, refusal) },
        keepAliveTimeout: 4_000,
      }),
    })));
  return {
    request: async (request: WebRequest, signal: AbortSignal): Promise<WebOutcome> =>
      followRedirects(request, signal, { settings, refusal, ...(await connect()) }),
    close: async () => {
      if (client) await (await client).dispatcher.close();
    },
  };
}
export type WebClient = ReturnType<typeof createWebClient>;

interface Hop {
  settings: WebSettings;
  refusal: (address: string) => string | undefined;
  dispatcher: Agent;
  fetch: typeof undiciFetch;
}

async function followRedirects(
  first: WebRequest,
  signal: AbortSignal,
  hop: Hop,
): Promise<WebOutcome> {
  const { settings } = hop;
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const both = AbortSignal.any([signal, deadline]);
  let request = first;
  try {
    for (let redirects = 0; ; redirects += 1) {
      const refused = checkUrl(request.url, hop.refusal);
      if (refused) return { ok: false, error: refused };
      const response = await hop.fetch(request.url, {
        method: request.method,
        headers: request.headers ?? {},
        ...(request.body === undefined ? {} : { body: request.body }),
        redirect: "manual",
        dispatcher: hop.dispatcher,
        signal: both,
      });
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null) {
        const { bytes, truncated } = await readLimited(response.body, settings.maxBytes);
        const { status, statusText, headers } = response;
        return {
          ok: true,
          response: { url: request.url, status, statusText, headers, body: bytes, truncated },
        };
      }
      await response.body?.cancel();
      if (redirects >= settings.maxRedirects)
        return { ok: false, error: `stopped after ${settings.maxRedirects} redirects` };
      request = redirected(request, response.status, location);
    }
  } catch (error) {
    if (deadline.aborted)
      return { ok: false, error: `timed out after ${settings.timeoutMs} ms (${request.url})` };
    if (signal.aborted) return { ok: false, error: "cancelled" };
    return { ok: false, error: describeFailure(error, request.url) };
  }
}

/** Why `url` may not be requested (scheme, credentials, an IP literal the guard refuses). */
function checkUrl(url: string, refusal: (address: string) => string | undefined) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `'${url}' is not a valid URL`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return `only http and https URLs can be fetched, not ${parsed.protocol}`;
  if (parsed.username || parsed.password) return "URLs with a user name or password are refused";
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) === 0) return undefined;
  const reason = refusal(host);
  return reason && `refused to connect to ${host}: it is ${reason}`;
}

/** The next request of a redirect, as browsers make it. */
function redirected(request: WebRequest, status: number, location: string): WebRequest {
  const next = new URL(location, request.url);
  // 303, and 301/302 after a POST, turn into a GET without a body (RFC 9110 15.4).
  const toGet = status === 303 || ((status === 301 || status === 302) && request.method === "POST");
  const method = toGet && request.method !== "HEAD" ? "GET" : request.method;
  let headers = { ...request.headers };
  // Credentials meant for one origin are not handed to another.
  if (next.origin !== new URL(request.url).origin)
    headers = Object.fromEntries(
      Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())),
    );
  const body = toGet ? undefined : request.body;
  return { method, url: next.href, headers, ...(body === undefined ? {} : { body }) };
}

function guardedLookup(
  resolve: Resolve,
  refusal: (address: string) => string | undefined,
): LookupFunction {
  return (hostname, options, callback) => {
    const fail = (error: unknown) => callback(error as NodeJS.ErrnoException, "", 0);
    void resolve(hostname).then((found) => {
      const picked = pickAddresses(hostname, found, options.family, refusal);
      if (picked instanceof Error) fail(picked);
      else if (options.all) callback(null, picked);
      else callback(null, picked[0]?.address ?? "", picked[0]?.family);
    }, fail);
  };
}

/** The addresses to connect to, or the refusal. */
function pickAddresses(
  hostname: string,
  found: readonly LookupAddress[],
  family: number | string | undefined,
  refusal: (address: string) => string | undefined,
): LookupAddress[] | Error {
  // Every address is checked, not just the one tried first: a name with one public and one
  // private address could otherwise reach the private one when the first fails.
  for (const { address } of found) {
    const reason = refusal(address);
    if (reason) return new AddressRefused(hostname, address, reason);
  }
  const wanted = family === 4 || family === 6 ? found.filter((a) => a.family === family) : found;
  if (wanted.length === 0) return new Error(`${hostname} has no usable address`);
  return [...wanted];
}

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** The innermost useful message of undici's `TypeError: fetch failed` and its causes. */
function describeFailure(error: unknown, url: string): string {
  // Without a cause it is the request itself that was wrong (a header name, a redirect target).
  if (error instanceof Error && error.cause === undefined && !(error instanceof AddressRefused))
    return `bad request: ${error.message}`;
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof AddressRefused) return current.message;
    if (!(current.cause instanceof Error)) break;
    current = current.cause;
  }
  const message = current instanceof Error ? current.message : String(current);
  const code = (current as { code?: unknown } | null)?.code;
  const host = URL.canParse(url) ? new URL(url).host : url;
  return `could not reach ${host}: ${typeof code === "string" && !message.includes(code) ? `${code} ` : ""}${message}`;
}
