import * as restate from "@restatedev/restate-sdk";
import type { SessionState } from "../../records/session-state.js";
import type { HeldSession } from "../session-mover.js";
import { AGENT_OBJECT } from "./ingress.js";
import type { Wire } from "./wire.js";

/** The service that moves a session between two agents. */
export const HANDOFF = "Handoff";

export interface TransferRequest {
  sourceId: string;
  sessionId: string;
  targetId: string;
}

/**
 * Moves a session from one agent to another through both agents' mailboxes, one after the
 * other, never holding one while waiting for the other (two agents handing sessions to each
 * other at once would wait for each other forever): the source holds the session out and is
 * marked busy, the target takes it (or refuses: it is busy), the source lets go and, if the
 * target took it, starts a fresh session. Each call is journaled, so a crash anywhere goes on
 * from the last one made, and the mark is always cleared.
 */
export function handoffService() {
  return restate.service({
    name: HANDOFF,
    handlers: {
      transfer: async (ctx: restate.Context, req: TransferRequest): Promise<Wire<SessionState>> => {
        const call = <I, O>(key: string, method: string, parameter: I) =>
          ctx.genericCall<I, Wire<O>>({
            service: AGENT_OBJECT,
            method,
            key,
            parameter,
            inputSerde: restate.serde.json,
            outputSerde: restate.serde.json,
          });
        const { sourceId, sessionId, targetId } = req;
        const held = await call<unknown, HeldSession>(sourceId, "handOver", { sessionId });
        if (!held.ok) return held;
        const moved = await call<HeldSession, SessionState>(targetId, "takeSession", held.value);
        const letGo = { sessionId, moved: moved.ok };
        const released = await call<unknown, null>(sourceId, "letGo", letGo);
        if (!released.ok && moved.ok) return released;
        return moved;
      },
    },
  });
}
