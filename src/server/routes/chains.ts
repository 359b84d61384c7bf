import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { ChainEvent } from "../../chains/chain-events.js";
import { FINISHED_CHAIN_STATUSES } from "../../records/chain-run.js";
import {
  ChainApprovalRequest,
  ChainRunListQuery,
  type ChainService,
  StartChainRequest,
} from "../../service/chain-service.js";
import type { AppEnv } from "../auth.js";
import { ChainFrameMapper } from "../chain-frames.js";
import { codeOf, frameWriter } from "../event-stream.js";
import { ErrorBodySchema } from "../schemas.js";
import { errorFrame } from "../sse-frames.js";

const NameParam = z.object({ name: z.string().min(1).max(64) });
const RunIdParam = z.object({ run_id: z.string().min(1).max(200) });
const ChainSchema = z.looseObject({
  name: z.string(),
  description: z.string(),
  stages: z.array(z.looseObject({ name: z.string() })),
});
const ChainRunSchema = z.looseObject({
  id: z.string(),
  chain: z.string(),
  status: z.string(),
  stages: z.array(z.looseObject({ name: z.string(), status: z.string() })),
});
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const ERRORS = {
  404: json(ErrorBodySchema, "No such chain or chain run in this project"),
  409: json(ErrorBodySchema, "The run is not waiting for an approval"),
  422: json(ErrorBodySchema, "Invalid request; `errors` gives each field's path"),
} as const;

const route = <R extends Parameters<typeof createRoute>[0]>(spec: R) =>
  createRoute({ ...spec, tags: ["chains"] });

const listChains = route({
  method: "get",
  path: "/v1/chains",
  summary: "The configured chains, with their stages and agents",
  responses: { 200: json(z.array(ChainSchema), "Every chain") },
});
const getChain = route({
  method: "get",
  path: "/v1/chains/{name}",
  summary: "One chain",
  request: { params: NameParam },
  responses: { 200: json(ChainSchema, "The chain"), ...ERRORS },
});
const startRun = route({
  method: "post",
  path: "/v1/chains/{name}/runs",
  summary:
    "Runs the chain on `input`: answers when it ends or waits for an approval; `background` answers at once (202); `stream` streams every stage agent's events (SSE)",
  request: {
    params: NameParam,
    body: { content: { "application/json": { schema: StartChainRequest } }, required: true },
  },
  responses: {
    200: {
      description: "The run, ended or awaiting approval (JSON), or its events (SSE)",
      content: {
        "application/json": { schema: ChainRunSchema },
        "text/event-stream": { schema: z.string() },
      },
    },
    202: json(ChainRunSchema, "The run, started in the background"),
    ...ERRORS,
  },
});
const listRuns = route({
  method: "get",
  path: "/v1/chain-runs",
  summary: "Chain runs of the project, newest first; filter by `chain`",
  request: { query: ChainRunListQuery },
  responses: { 200: json(z.array(ChainRunSchema), "A page"), ...ERRORS },
});
const getRun = route({
  method: "get",
  path: "/v1/chain-runs/{run_id}",
  summary: "A chain run: status, each stage's agents and output, score, timings, tokens",
  request: { params: RunIdParam },
  responses: { 200: json(ChainRunSchema, "The run"), ...ERRORS },
});
const cancelRun = route({
  method: "post",
  path: "/v1/chain-runs/{run_id}/cancel",
  summary: "Cancels the run's agents at work and ends the run as cancelled",
  request: { params: RunIdParam },
  responses: { 200: json(ChainRunSchema, "The run"), ...ERRORS },
});
const approve = route({
  method: "post",
  path: "/v1/chain-runs/{run_id}/approvals",
  summary: "Answers approvals the run's agents wait for; answers when the run next stops",
  request: {
    params: RunIdParam,
    body: { content: { "application/json": { schema: ChainApprovalRequest } }, required: true },
  },
  responses: { 200: json(ChainRunSchema, "The run"), ...ERRORS },
});
const streamRun = route({
  method: "get",
  path: "/v1/chain-runs/{run_id}/stream",
  summary: "Re-attaches to a run: its state now, then its events until it ends",
  request: {
    params: RunIdParam,
    query: z.object({ stream_tokens: z.enum(["true", "false"]).optional() }),
  },
  responses: {
    200: { description: "SSE", content: { "text/event-stream": { schema: z.string() } } },
    ...ERRORS,
  },
});

export function chainRoutes(app: OpenAPIHono<AppEnv>, chains: ChainService): void {
  app.openapi(listChains, (c) => c.json(chains.list(), 200));
  app.openapi(getChain, (c) => c.json(chains.get(c.req.valid("param").name), 200));
  app.openapi(startRun, async (c) => {
    const projectId = c.get("projectId");
    const body = c.req.valid("json");
    const run = await chains.start(projectId, c.req.valid("param").name, body);
    if (body.stream) return followRun(c, chains, run.id, body.stream_tokens ?? false);
    if (body.background) return c.json(run, 202);
    return c.json(await chains.settled(projectId, run.id), 200);
  });
  app.openapi(listRuns, async (c) =>
    c.json(await chains.listRuns(c.get("projectId"), c.req.valid("query")), 200),
  );
  app.openapi(getRun, async (c) =>
    c.json(await chains.getRun(c.get("projectId"), c.req.valid("param").run_id), 200),
  );
  app.openapi(cancelRun, async (c) =>
    c.json(await chains.cancel(c.get("projectId"), c.req.valid("param").run_id), 200),
  );
  app.openapi(approve, async (c) => {
    const { run_id } = c.req.valid("param");
    return c.json(await chains.approve(c.get("projectId"), run_id, c.req.valid("json")), 200);
  });
  app.openapi(streamRun, async (c) => {
    const { run_id } = c.req.valid("param");
    await chains.getRun(c.get("projectId"), run_id);
    return followRun(c, chains, run_id, c.req.valid("query").stream_tokens === "true");
  });
}

/** The run's state, then its events as they happen, until it ends (or the client leaves). */
function followRun(c: Context<AppEnv>, chains: ChainService, runId: string, streamTokens: boolean) {
  const projectId = c.get("projectId");
  return streamSSE(c, async (sse) => {
    const out = frameWriter(sse, c.get("flush"));
    const mapper = new ChainFrameMapper(streamTokens);
    let ended: () => void = () => {};
    const end = new Promise<void>((resolve) => {
      ended = resolve;
    });
    sse.onAbort(() => ended());
    // Events wait until the run's state is out, so that the stream starts with it.
    let early: ChainEvent[] | null = [];
    const send = (event: ChainEvent) => {
      for (const frame of mapper.frames(event)) out.write(frame);
      if (event.type === "run" && FINISHED_CHAIN_STATUSES.includes(event.status)) ended();
    };
    const unsubscribe = chains.subscribe(runId, (event) =>
      early ? early.push(event) : send(event),
    );
    try {
      const now = await chains.getRun(projectId, runId);
      out.write(mapper.snapshot(now));
      for (const event of early) send(event);
      early = null;
      if (FINISHED_CHAIN_STATUSES.includes(now.status)) ended();
      // Driven by another API process: its events stay there; the end is read from the store.
      else if (!chains.driving(runId)) chains.ended(runId).then(ended, ended);
      await end;
      if (out.open) out.write(mapper.snapshot(await chains.getRun(projectId, runId)));
    } catch (error) {
      out.write(errorFrame(error instanceof Error ? error.message : String(error), codeOf(error)));
    } finally {
      unsubscribe();
    }
    out.write({ data: "[DONE]" });
    await out.drained();
  });
}
