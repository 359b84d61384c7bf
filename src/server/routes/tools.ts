import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ToolService } from "../../service/tool-service.js";
import type { AppEnv } from "../auth.js";

/** Tool routes: `/v1/tools` and an agent's tools. */
export function toolRoutes(_app: OpenAPIHono<AppEnv>, _tools: ToolService): void {}
