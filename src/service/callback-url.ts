import { ValidationError } from "../core/errors.js";

/**
 * Refuses Letta's `callback_url` (on async messages and schedules): Holdfast calls no one back.
 * A 422 rather than a field quietly dropped, so nobody waits for a call that never comes.
 */
export function refuseCallbackUrl(url: string | null | undefined, what: string): void {
  if (url == null) return;
  throw new ValidationError("callback_url is not supported", [
    {
      path: "callback_url",
      message: `Holdfast does not call back; ${what}: poll GET /v1/runs?agent_id=… or its messages`,
    },
  ]);
}
