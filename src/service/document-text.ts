import { extname } from "node:path";
import { HoldfastError, ValidationError } from "../core/errors.js";

/** A file type Holdfast does not read (Letta answers these with 415 too). */
export class UnsupportedFileError extends HoldfastError {
  readonly code = "UNSUPPORTED_FILE_TYPE";
  readonly retryable = false;
}

/** The largest file an upload may carry (the request body limit is the other bound). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const TEXT_TYPES: Record<string, string> = {
  ".txt": "text/plain",
  ".text": "text/plain",
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".mdx": "text/markdown",
  ".json": "application/json",
  ".jsonl": "application/jsonl",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".xml": "application/xml",
  ".yaml": "application/x-yaml",
  ".yml": "application/x-yaml",
  ".html": "text/html",
  ".py": "text/x-python",
  ".js": "text/javascript",
  ".ts": "text/x-typescript",
  ".java": "text/x-java",
  ".go": "text/x-go",
  ".rs": "text/x-rust",
  ".c": "text/x-c",
  ".cpp": "text/x-c++",
  ".h": "text/x-c",
  ".sh": "text/x-shellscript",
  ".sql": "text/x-sql",
};
const PDF = "application/pdf";

/**
 * The media type of an upload, as Letta decides it: the declared type if it is one Holdfast
 * reads, else the one the file name's extension says; null if neither is readable.
 */
export function mediaTypeOf(fileName: string, declared: string): string | null {
  const type = declared.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  const known = new Set([PDF, ...Object.values(TEXT_TYPES)]);
  if (known.has(type)) return type;
  const ext = extname(fileName).toLowerCase();
  if (ext === ".pdf") return PDF;
  return TEXT_TYPES[ext] ?? (type.startsWith("text/") ? type : null);
}

/**
 * The text of an uploaded file: UTF-8 text as it is, a PDF's text page by page (through
 * PDF.js, `unpdf`). A type Holdfast does not read is a 415; bytes that are not what the type
 * says (a PDF that does not parse, text with NUL bytes or invalid UTF-8) are a 400 at `file`.
 */
export async function documentText(
  fileName: string,
  declared: string,
  bytes: Uint8Array,
): Promise<{ mediaType: string; text: string }> {
  const mediaType = mediaTypeOf(fileName, declared);
  if (mediaType === null) {
    throw new UnsupportedFileError(
      `Unsupported file type: ${declared || "unknown"} (filename: ${fileName}). Supported types: PDF, text files (.txt, .md), JSON, and code files (.py, .js, .java, etc.).`,
    );
  }
  if (mediaType === PDF) return { mediaType, text: await pdfText(fileName, bytes) };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badFile(`${fileName} is not valid UTF-8 text`);
  }
  if (text.includes("\u0000")) throw badFile(`${fileName} holds NUL bytes: it is not text`);
  return { mediaType, text: text.replace(/^\uFEFF/, "") };
}

async function pdfText(fileName: string, bytes: Uint8Array): Promise<string> {
  const { extractText, getDocumentProxy } = await import("unpdf");
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    try {
      const { text } = await extractText(pdf, { mergePages: false });
      return text.join("\n\n");
    } finally {
      await pdf.loadingTask.destroy();
    }
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw badFile(`${fileName} is not a readable PDF: ${why}`);
  }
}

/** A 400 naming the `file` field, as Letta answers a file it cannot parse. */
export class BadFileError extends ValidationError {
  override readonly code: string = "BAD_FILE";
}

function badFile(message: string): BadFileError {
  return new BadFileError(message, [{ path: "file", message }]);
}

const isControl = (ch: string) => {
  const code = ch.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
};

/** The text without control characters (file names are matched one per line). */
export function withoutControlCharacters(text: string): string {
  return [...text].filter((ch) => !isControl(ch)).join("");
}

/** An upload over `MAX_UPLOAD_BYTES`. */
export class FileTooLargeError extends HoldfastError {
  readonly code = "PAYLOAD_TOO_LARGE";
  readonly retryable = false;
}
