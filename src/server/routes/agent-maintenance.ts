import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ValidationError } from "../../core/errors.js";
import type { AgentMaintenanceService } from "../../service/agent-maintenance-service.js";
import type { AppEnv } from "../auth.js";
import { refuseDeepText } from "../body-depth.js";
import { firstUnstorableString } from "../body-text.js";
import { body as errorBody } from "../error-response.js";
import { AGENT_ERRORS, AgentIdParam } from "../schemas.js";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const exportFile = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/export",
  tags: ["agents"],
  summary: "The agent as Letta's agent file (.af): core memory, tools, rules and history",
  request: {
    params: AgentIdParam,
    query: z.object({
      scrub_messages: z.enum(["true", "false"]).optional(),
      use_legacy_format: z.enum(["true", "false"]).optional(),
      max_steps: z.string().max(20).optional(),
    }),
  },
  responses: {
    200: json(z.looseObject({ agents: z.array(z.unknown()) }), "The agent file"),
    ...AGENT_ERRORS,
  },
});

const importFile = createRoute({
  method: "post",
  path: "/v1/agents/import",
  tags: ["agents"],
  summary:
    "Create agents from Letta's agent file (multipart `file`), with new ids; all or nothing, every problem reported at its path",
  responses: {
    200: json(z.object({ agent_ids: z.array(z.string()) }), "The new agents' ids"),
    400: AGENT_ERRORS[422],
    422: AGENT_ERRORS[422],
  },
});

const context = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/context",
  tags: ["agents"],
  summary:
    "The context window of the agent's next model call, part by part (Letta's ContextWindowOverview)",
  request: { params: AgentIdParam },
  responses: {
    200: json(z.looseObject({ context_window_size_max: z.number() }), "The breakdown"),
    ...AGENT_ERRORS,
  },
});

const recompile = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/recompile",
  tags: ["agents"],
  summary:
    "The system prompt compiled from the agent's current memory (what its next turn sends; compiled afresh every turn)",
  request: {
    params: AgentIdParam,
    query: z.object({
      update_timestamp: z.enum(["true", "false"]).optional(),
      dry_run: z.enum(["true", "false"]).optional(),
    }),
  },
  responses: { 200: json(z.string(), "The system prompt"), ...AGENT_ERRORS },
});

const reset = createRoute({
  method: "patch",
  path: "/v1/agents/{agent_id}/reset-messages",
  tags: ["agents"],
  summary:
    "Start the model's context afresh; the history stays stored and searchable (409 while a run is active)",
  request: {
    params: AgentIdParam,
    body: {
      content: {
        "application/json": {
          schema: z.object({ add_default_initial_messages: z.boolean().optional() }),
        },
      },
    },
  },
  responses: {
    200: json(z.null(), "Reset (Letta answers the 1.x client with null)"),
    ...AGENT_ERRORS,
  },
});

const formText = (value: unknown) =>
  typeof value === "string" && value !== "" ? value : undefined;

export function agentMaintenanceRoutes(
  app: OpenAPIHono<AppEnv>,
  service: AgentMaintenanceService,
): void {
  app.openapi(exportFile, async (c) => {
    const { agent_id } = c.req.valid("param");
    const query = c.req.valid("query");
    if (query.use_legacy_format === "true")
      throw new ValidationError("invalid request", [
        { path: "use_legacy_format", message: "Legacy format is not supported" },
      ]);
    const file = await service.exportFile(c.get("projectId"), agent_id, {
      scrubMessages: query.scrub_messages === "true",
    });
    return c.json(file, 200);
  });
  app.openapi(importFile, async (c) => {
    const form = await c.req.parseBody().catch(() => {
      throw new ValidationError("invalid request", [
        { path: "file", message: "send the agent file as multipart/form-data field 'file'" },
      ]);
    });
    const file = form.file;
    if (!(file instanceof File))
      throw new ValidationError("invalid request", [
        { path: "file", message: "the agent file is missing" },
      ]);
    // A file may come JSON-encoded twice (Letta's clients send it so): each text is checked.
    let raw: unknown = await file.text();
    for (let decoded = 0; decoded < 2 && typeof raw === "string"; decoded++) {
      refuseDeepText(raw, "file");
      try {
        raw = JSON.parse(raw);
      } catch {
        return c.json(errorBody("BAD_REQUEST", "Corrupted agent file format."), 400);
      }
    }
    // The body's own check of NULs and lone surrogates skips multipart: the file is checked here.
    const unstorable = firstUnstorableString(raw);
    if (unstorable !== null) throw new ValidationError("invalid agent file", [unstorable]);
    if (
      typeof raw !== "object" ||
      raw === null ||
      !Array.isArray((raw as { agents?: unknown }).agents)
    )
      return c.json(
        errorBody(
          "BAD_REQUEST",
          "Legacy AgentSchema format is deprecated. Please use the new AgentFileSchema format with 'agents' field.",
        ),
        400,
      );
    const result = await service.importFile(c.get("projectId"), raw, {
      name: formText(form.name) ?? formText(form.override_name),
      model: formText(form.model) ?? formText(form.override_model_handle),
      stripMessages: form.strip_messages === "true",
    });
    return c.json(result, 200);
  });
  app.openapi(recompile, async (c) =>
    c.json(await service.recompile(c.get("projectId"), c.req.valid("param").agent_id), 200),
  );
  app.openapi(context, async (c) =>
    c.json(await service.context(c.get("projectId"), c.req.valid("param").agent_id), 200),
  );
  app.openapi(reset, async (c) => {
    const { agent_id } = c.req.valid("param");
    const body = c.req.valid("json") ?? {};
    return c.json(await service.resetMessages(c.get("projectId"), agent_id, body), 200);
  });
}
