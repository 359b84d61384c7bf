import { fork } from "node:child_process";
import { timed } from "./measure.js";

/**
 * What the `http` scenario's client does: a turn with Letta's official client, and a bare JSON
 * POST (the floor under any HTTP overhead), each timed where it is sent.
 */
export interface TurnClient {
  /** Sends turn `i` to the agent over the Letta API; resolves with its milliseconds. */
  turn(agentId: string, i: number): Promise<number>;
  /** POSTs a small JSON body to `url` the way the client fetches; resolves with its milliseconds. */
  bare(url: string, i: number): Promise<number>;
  close(): Promise<void>;
}

/** The client in this process: its own work shares the server's event loop and core. */
export async function clientHere(baseURL: string): Promise<TurnClient> {
  // A dev dependency: the bench runs from a checkout, never from the published package.
  const { default: Letta } = await import("@letta-ai/letta-client");
  const client = new Letta({ baseURL, maxRetries: 0 });
  return {
    turn: (agentId, i) =>
      timed(() =>
        client.agents.messages.create(agentId, {
          messages: [{ role: "user", content: `question ${i}` }],
        }),
      ),
    bare: (url, i) =>
      timed(async () => {
        const body = JSON.stringify({ messages: [{ role: "user", content: `question ${i}` }] });
        const headers = { "content-type": "application/json" };
        const answer = await fetch(url, { method: "POST", headers, body });
        await answer.json();
      }),
    close: async () => undefined,
  };
}

/** What the parent asks of a client in a child process, and what it answers. */
export type ChildRequest =
  | { kind: "turn"; agentId: string; i: number }
  | { kind: "bare"; url: string; i: number };
export type ChildAnswer = { ms: number } | { error: string };

/**
 * The client in a process of its own, as a user's client is: its work runs on the other core,
 * and what it measures is what the server and the connection add. One request at a time.
 */
export async function clientInChild(baseURL: string): Promise<TurnClient> {
  const child = fork(new URL("./letta-turn-child.js", import.meta.url), [baseURL], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await new Promise<void>((ready, fail) => {
    child.once("message", () => ready());
    child.once("error", fail);
  });
  const ask = (request: ChildRequest) =>
    new Promise<number>((answered, fail) => {
      child.once("message", (answer: ChildAnswer) =>
        "ms" in answer ? answered(answer.ms) : fail(new Error(answer.error)),
      );
      child.send(request);
    });
  return {
    turn: (agentId, i) => ask({ kind: "turn", agentId, i }),
    bare: (url, i) => ask({ kind: "bare", url, i }),
    close: async () => {
      child.disconnect();
      await new Promise((exited) => child.once("exit", exited));
    },
  };
}
