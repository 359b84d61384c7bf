import type { ServiceContext } from "./agent-access.js";

/** Tools: the server's catalogue, and which tools each agent has. */
export class ToolService {
  constructor(protected readonly ctx: ServiceContext) {}
}
