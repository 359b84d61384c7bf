import { Agent as HttpAgent, request } from "node:http";
import { RetryableError } from "../../core/errors.js";

/** The virtual object every agent is, keyed by agent id. */
export const AGENT_OBJECT = "Agent";

/**
 * Restate's HTTP ingress, as the API process (and a worker reaching other agents) uses it:
 * a call waits for the handler's answer; a send only hands the invocation to Restate, which
 * stores it durably before answering. An idempotency key makes a repeated call or send attach
 * to the first invocation instead of starting another.
 */
export class Ingress {
  readonly #agent = new HttpAgent({ keepAlive: true, maxSockets: 256 });

  constructor(readonly url: string) {}

  /** Calls a handler of agent `key` and returns its answer. */
  call<T>(key: string, handler: string, body: unknown, idempotencyKey?: string): Promise<T> {
    return this.#post(
      `/${AGENT_OBJECT}/${encodeURIComponent(key)}/${handler}`,
      body,
      idempotencyKey,
    );
  }

  /** Calls a handler of a (keyless) service and returns its answer. */
  callService<T>(service: string, handler: string, body: unknown): Promise<T> {
    return this.#post(`/${service}/${handler}`, body);
  }

  /** Hands an invocation of a handler to Restate without waiting for it to run. */
  async send(key: string, handler: string, body: unknown, idempotencyKey?: string): Promise<void> {
    await this.#post(
      `/${AGENT_OBJECT}/${encodeURIComponent(key)}/${handler}/send`,
      body,
      idempotencyKey,
    );
  }

  close(): void {
    this.#agent.destroy();
  }

  #post<T>(path: string, body: unknown, idempotencyKey?: string): Promise<T> {
    const data = Buffer.from(JSON.stringify(body ?? null));
    const url = new URL(path, this.url);
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": data.length,
    };
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    return new Promise<T>((resolve, reject) => {
      const req = request(url, { method: "POST", headers, agent: this.#agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            resolve((text ? JSON.parse(text) : null) as T);
            return;
          }
          reject(new RetryableError(`Restate ingress ${path} answered ${status}: ${text}`, 1000));
        });
      });
      req.on("error", (error) =>
        reject(
          new RetryableError(`Restate ingress ${this.url} unreachable: ${error.message}`, 1000),
        ),
      );
      req.end(data);
    });
  }
}
