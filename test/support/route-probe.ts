import type { ClientRoute } from "./client-routes.js";

/** What a server answered to one route: its status, and whether it was "no such route". */
export interface ProbeResult {
  route: ClientRoute;
  status: number;
  noRoute: boolean;
}

/**
 * Calls a client route on a running server with `agentId` for the agent parameter and a
 * made-up id elsewhere, and an empty JSON body: the answer may well be a 404 for a missing
 * thing or a 422 for the body, but only a route the server lacks answers "no route for".
 */
export async function probeRoute(
  url: string,
  route: ClientRoute,
  agentId: string,
): Promise<ProbeResult> {
  let path = route.path;
  if (path.startsWith("/v1/agents/{}")) path = path.replace("{}", agentId);
  path = path.replaceAll("{}", "missing-0");
  const hasBody = route.method !== "GET" && route.method !== "DELETE";
  const response = await fetch(`${url}${path}`, {
    method: route.method,
    headers: hasBody ? { "content-type": "application/json" } : {},
    ...(hasBody ? { body: "{}" } : {}),
  });
  const text = await response.text();
  const noRoute = response.status === 404 && text.includes("no route for");
  return { route, status: response.status, noRoute };
}
