import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MemoryService } from "../../service/memory-service.js";
import type { AppEnv } from "../auth.js";

/** Core-memory block and archival-memory routes. */
export function memoryRoutes(_app: OpenAPIHono<AppEnv>, _memory: MemoryService): void {}
