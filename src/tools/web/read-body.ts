/**
 * Reads a response body up to `maxBytes` and stops there, cancelling the rest of the stream:
 * a page that never ends, or a small compressed body that inflates to gigabytes, costs at most
 * `maxBytes` of memory.
 */
export async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!body) return { bytes: new Uint8Array(), truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - total));
      total = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    total += value.length;
  }
  return { bytes: Buffer.concat(chunks, total), truncated };
}

/** What a body is, as the web tools treat it. */
export type BodyKind = "html" | "text" | "binary";

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-yaml|yaml|csv|x-ndjson|ld\+json|rss\+xml|atom\+xml|x-www-form-urlencoded|graphql)|[^;]*\+(json|xml)\s*(;|$))/i;

/** Classifies a body by its content type; with none given, by looking for NUL bytes. */
export function bodyKind(contentType: string | null, bytes: Uint8Array): BodyKind {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (TEXT_TYPES.test(type)) return "text";
  if (type !== "" && type !== "application/octet-stream") return "binary";
  const head = bytes.subarray(0, 1024);
  if (head.includes(0)) return "binary";
  return /^\s*<(!doctype html|html)/i.test(Buffer.from(head).toString("latin1")) ? "html" : "text";
}

/** Decodes a text body by the charset its content type names, UTF-8 by default. */
export function decodeText(contentType: string | null, bytes: Uint8Array): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType ?? "")?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}
