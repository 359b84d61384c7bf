import { type ChildAnswer, type ChildRequest, clientHere } from "./letta-turn-client.js";

/**
 * The `http` scenario's client in a process of its own (`clientInChild`): it sends what the
 * parent asks over IPC and answers with how long it took, measured here.
 */
const baseURL = process.argv[2] ?? "";
const client = await clientHere(baseURL);
const answer = (message: ChildAnswer | { ready: true }) => process.send?.(message);

process.on("message", async (request: ChildRequest) => {
  try {
    const ms =
      request.kind === "turn"
        ? await client.turn(request.agentId, request.i)
        : await client.bare(request.url, request.i);
    answer({ ms });
  } catch (error) {
    answer({ error: error instanceof Error ? error.message : String(error) });
  }
});
process.on("disconnect", () => process.exit(0));
answer({ ready: true });
