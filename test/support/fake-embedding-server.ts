import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One `/embeddings` request as the server received it. */
export interface EmbeddingRequest {
  model: string;
  input: string[];
  /** The HTTP status it was answered with. */
  status: number;
}

/**
 * Words that mean the same thing share an axis, so a query with no word in common with a
 * passage can still be nearest to it: what a real embedding model does, made deterministic.
 */
export const CONCEPTS: readonly (readonly string[])[] = [
  ["car", "automobile", "vehicle", "drive", "sedan"],
  ["cat", "feline", "kitten", "pet"],
  ["coffee", "espresso", "latte", "caffeine"],
  ["mountain", "hiking", "summit", "trail"],
  ["ocean", "sea", "beach", "waves"],
  ["birthday", "anniversary", "celebration", "party"],
];
const DIMENSIONS = CONCEPTS.length + 2;

/** The default vector of a text: one axis per concept it mentions, plus a little of a shared one. */
export function conceptVector(text: string): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  const vector = new Array<number>(DIMENSIONS).fill(0);
  CONCEPTS.forEach((concept, axis) => {
    vector[axis] = words.filter((word) => concept.includes(word)).length;
  });
  vector[DIMENSIONS - 2] = 0.05;
  vector[DIMENSIONS - 1] = (words.length % 7) * 0.001;
  return vector;
}

/**
 * A local server speaking OpenAI's `POST /v1/embeddings` wire format (also what Ollama and
 * OpenAI-compatible servers serve). The test controls the vectors (`vectorFor`), and can make
 * the next requests fail with a status (`failNext`) or wait (`hold`).
 */
export async function startFakeEmbeddingServer(
  options: { vectorFor?: (text: string, model: string) => number[] } = {},
) {
  const requests: EmbeddingRequest[] = [];
  const failures: number[] = [];
  let held: Promise<void> | null = null;
  const vectorFor = options.vectorFor ?? conceptVector;

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || !req.url?.endsWith("/embeddings")) {
      return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      model: string;
      input: string | string[];
    };
    const input = typeof body.input === "string" ? [body.input] : body.input;
    if (held !== null) await held;
    const failure = failures.shift();
    if (failure !== undefined) {
      requests.push({ model: body.model, input, status: failure });
      return send(failure, {
        error: { message: `scripted failure ${failure}`, type: "server_error", code: null },
      });
    }
    requests.push({ model: body.model, input, status: 200 });
    const data = input.map((text, index) => ({
      object: "embedding",
      index,
      embedding: vectorFor(text, body.model),
    }));
    const tokens = input.reduce((sum, text) => sum + text.split(/\s+/).length, 0);
    send(200, {
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The base URL to give as OPENAI_BASE_URL (or an Ollama / OpenAI-compatible base URL). */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Successful requests only. */
    served: () => requests.filter((request) => request.status === 200),
    /** The next `count` requests fail with `status`. */
    failNext(count: number, status = 500) {
      for (let i = 0; i < count; i++) failures.push(status);
    },
    /** Requests wait until the returned function is called. */
    hold(): () => void {
      let release = () => {};
      held = new Promise((resolve) => {
        release = () => {
          held = null;
          resolve();
        };
      });
      return release;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
