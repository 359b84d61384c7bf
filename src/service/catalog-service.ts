import { ValidationError } from "../core/errors.js";
import { parseModelHandle } from "../llm/handle.js";
import { rankBm25 } from "../storage/bm25.js";
import type { ServiceContext } from "./agent-access.js";
import { toolView } from "./letta-views.js";

/** Letta's `GET /v1/tags/` query. */
export interface TagQuery {
  after?: string | undefined;
  before?: string | undefined;
  limit?: number | undefined;
  order?: "asc" | "desc" | undefined;
  /** A case-insensitive part of the tag (Letta's `name`, or the older `query_text`). */
  text?: string | undefined;
}

/** Letta's provider type (an enum of its client) nearest to each Holdfast provider. */
const LETTA_PROVIDER_TYPE: Record<string, string> = {
  openai: "openai",
  "openai-responses": "openai",
  anthropic: "anthropic",
  google: "google_ai",
  ollama: "ollama",
  "openai-compatible": "openai",
  sim: "letta",
};

/** Letta's `POST /v1/tools/search` body. */
export interface ToolSearch {
  query?: string | null | undefined;
  search_mode?: "vector" | "fts" | "hybrid" | undefined;
  tool_types?: string[] | null | undefined;
  tags?: string[] | null | undefined;
  limit?: number | undefined;
}

const EVERY_AGENT = 100_000;

/** What the server offers as a whole: its agents' tags, its usable models, its tools by search. */
export class CatalogService {
  constructor(private readonly ctx: ServiceContext) {}

  /** The project's agent tags, alphabetically, paged by tag as Letta's router pages them. */
  async tags(projectId: string, query: TagQuery): Promise<string[]> {
    const agents = await this.ctx.store.listAgents(projectId, { limit: EVERY_AGENT, order: "asc" });
    const text = query.text?.toLowerCase();
    let tags = [...new Set(agents.flatMap((agent) => agent.tags))]
      .filter((tag) => text === undefined || tag.toLowerCase().includes(text))
      .sort();
    const asc = (query.order ?? "asc") === "asc";
    if (!asc) tags.reverse();
    const { after, before } = query;
    if (after !== undefined) tags = tags.filter((t) => (asc ? t > after : t < after));
    if (before !== undefined) tags = tags.filter((t) => (asc ? t < before : t > before));
    return tags.slice(0, query.limit ?? 50);
  }

  /**
   * The model handles this server can use now, as Letta's `Model`: the default model, those
   * agent types name (with their fallbacks), and `sim/demo`, which needs no key. A handle
   * whose provider has no key or address configured is left out.
   */
  models(filter: { providerName?: string; providerType?: string; category?: string[] }) {
    const named = [this.ctx.defaultModel, "sim/demo"];
    for (const name of this.ctx.config.registry.names()) {
      const type = this.ctx.config.registry.get(name);
      if (type?.model) named.push(type.model);
      named.push(...(type?.model_fallbacks ?? []));
    }
    const usable = [...new Set(named)].filter((handle) => !this.ctx.checkModel(handle));
    return usable
      .map((handle) => {
        const { provider, model } = parseModelHandle(handle);
        const contextWindow = this.ctx.modelFor(handle).contextWindow;
        const type = LETTA_PROVIDER_TYPE[provider] ?? "openai";
        return {
          handle,
          name: model,
          model,
          display_name: handle,
          model_type: "llm",
          provider_name: provider,
          provider_type: type,
          provider_category: "base",
          model_endpoint_type: type === "letta" ? "openai" : type,
          context_window: contextWindow,
          max_context_window: contextWindow,
        };
      })
      .filter(
        (m) =>
          (filter.providerName === undefined || m.provider_name === filter.providerName) &&
          (filter.providerType === undefined || m.provider_type === filter.providerType) &&
          (!filter.category?.length || filter.category.includes(m.provider_category)),
      );
  }

  /**
   * Tools ranked by full text (BM25 over name, description and tags). There are no tool
   * embeddings, so `vector` search is refused and `hybrid` ranks by full text alone.
   */
  searchTools(body: ToolSearch) {
    if (body.search_mode === "vector")
      throw new ValidationError("invalid request", [
        {
          path: "search_mode",
          message: "Holdfast does not embed tools; use 'fts' or 'hybrid' (ranked by full text)",
        },
      ]);
    const views = [...this.ctx.config.catalogue.tools.values()]
      .map((tool) => toolView(tool))
      .filter(
        (tool) =>
          (!body.tool_types?.length || body.tool_types.includes(tool.tool_type)) &&
          (!body.tags?.length || body.tags.some((tag) => tool.tags.includes(tag))),
      );
    const limit = body.limit ?? 50;
    const result = (tool: (typeof views)[number], rank: number | null) => ({
      tool,
      embedded_text: null,
      fts_rank: rank,
      vector_rank: null,
      combined_score: rank === null ? 0 : 1 / rank,
    });
    const query = body.query?.trim() ?? "";
    if (query === "") return views.slice(0, limit).map((tool) => result(tool, null));
    const texts = views.map(
      (t) => `${t.name.replace(/_/g, " ")} ${t.description} ${t.tags.join(" ")}`,
    );
    return rankBm25(query, texts, limit).map((index, i) =>
      result(views[index] as (typeof views)[number], i + 1),
    );
  }
}
