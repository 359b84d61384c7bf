/**
 * The console's one way to the API: same origin, the bearer token from sessionStorage (kept for
 * the tab only), and a 401 turned into a request for the token instead of an error.
 */
const TOKEN_KEY = "holdfast.token";

let askForToken: () => void = () => {};

/** The app registers how to ask for a token when the API answers 401. */
export function onUnauthorized(ask: () => void): void {
  askForToken = ask;
}

export function setToken(token: string): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function hasToken(): boolean {
  return sessionStorage.getItem(TOKEN_KEY) !== null;
}

/** An API error with the server's message (and field paths, when it sent some). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function headers(json: boolean): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return {
    ...(json ? { "content-type": "application/json" } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

async function send(method: string, path: string, body?: unknown): Promise<Response> {
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (response.status === 401) askForToken();
  if (!response.ok) throw new ApiError(response.status, await errorText(response));
  return response;
}

async function errorText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as {
      message?: string;
      error?: { message?: string };
      errors?: { path: string; message: string }[];
    };
    const fields = (body.errors ?? []).map((e) => `${e.path}: ${e.message}`).join("; ");
    const message = body.message ?? body.error?.message ?? text;
    return `${response.status} ${message}${fields ? ` (${fields})` : ""}`;
  } catch {
    return `${response.status} ${text}`;
  }
}

export async function get<T>(path: string): Promise<T> {
  return (await (await send("GET", path)).json()) as T;
}

/** A GET that answers `null` on 404: for routes this server may not have (steps, usage). */
export async function getOptional<T>(path: string): Promise<T | null> {
  try {
    return await get<T>(path);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export async function post<T>(path: string, body: unknown): Promise<T> {
  return (await (await send("POST", path, body)).json()) as T;
}

export async function patch<T>(path: string, body: unknown): Promise<T> {
  return (await (await send("PATCH", path, body)).json()) as T;
}

export async function del(path: string): Promise<void> {
  await send("DELETE", path);
}

/**
 * Reads an SSE stream (POST or GET) with fetch, since EventSource can send neither a body nor an
 * Authorization header; calls `onData` with each frame's parsed `data`, until `[DONE]` or the end.
 */
export async function stream(
  method: "GET" | "POST",
  path: string,
  body: unknown,
  onData: (data: Record<string, unknown>, event: string | undefined) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await fetch(path, {
    method,
    headers: { ...headers(body !== undefined), accept: "text/event-stream" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    ...(signal ? { signal } : {}),
  });
  if (response.status === 401) askForToken();
  if (!response.ok || !response.body)
    throw new ApiError(response.status, await errorText(response));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n/g, "\n");
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      let event: string | undefined;
      const data: string[] = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      const text = data.join("\n");
      if (text === "[DONE]") return;
      if (text) onData(JSON.parse(text) as Record<string, unknown>, event);
    }
  }
}
