import { z } from "zod";

/** A model's price in US dollars per million tokens. */
export const ModelPrice = z.strictObject({
  input_per_million: z.number().min(0),
  output_per_million: z.number().min(0),
  /** Prompt tokens read from the provider's cache; the input price when absent. */
  cached_input_per_million: z.number().min(0).optional(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

/**
 * The `observability:` section. `metrics`: who may read `GET /metrics` — `token` (the default:
 * any valid bearer token when tokens are configured; anyone when none are, as every route),
 * `open` (no token ever, for a scraper on a private network) or `off` (no route). `prices`:
 * USD per million tokens by model handle, added to (or replacing) the built-in table.
 */
export const ObservabilitySection = z.strictObject({
  metrics: z.enum(["token", "open", "off"]).default("token"),
  prices: z
    .record(
      z.string().regex(/^[a-z][a-z0-9-]*\/\S+$/, "a model handle, 'provider/model'"),
      ModelPrice,
    )
    .default({}),
});
export type ObservabilitySection = z.infer<typeof ObservabilitySection>;

/**
 * List prices of well-known models (USD per million tokens, as their providers published them
 * in 2025). A model not here shows tokens without a price; config adds or corrects entries.
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  "openai/gpt-4o": {
    input_per_million: 2.5,
    output_per_million: 10,
    cached_input_per_million: 1.25,
  },
  "openai/gpt-4o-mini": {
    input_per_million: 0.15,
    output_per_million: 0.6,
    cached_input_per_million: 0.075,
  },
  "openai/gpt-4.1": { input_per_million: 2, output_per_million: 8, cached_input_per_million: 0.5 },
  "openai/gpt-4.1-mini": {
    input_per_million: 0.4,
    output_per_million: 1.6,
    cached_input_per_million: 0.1,
  },
  "openai/gpt-4.1-nano": {
    input_per_million: 0.1,
    output_per_million: 0.4,
    cached_input_per_million: 0.025,
  },
  "openai/o4-mini": {
    input_per_million: 1.1,
    output_per_million: 4.4,
    cached_input_per_million: 0.275,
  },
  "anthropic/claude-sonnet-4-0": {
    input_per_million: 3,
    output_per_million: 15,
    cached_input_per_million: 0.3,
  },
  "anthropic/claude-3-5-haiku-latest": {
    input_per_million: 0.8,
    output_per_million: 4,
    cached_input_per_million: 0.08,
  },
  "google/gemini-2.5-flash": {
    input_per_million: 0.3,
    output_per_million: 2.5,
    cached_input_per_million: 0.075,
  },
  "google/gemini-2.5-pro": {
    input_per_million: 1.25,
    output_per_million: 10,
    cached_input_per_million: 0.31,
  },
};

export const DEFAULT_OBSERVABILITY: ObservabilitySection = { metrics: "token", prices: {} };

/** The price table in force: built-in prices, then the config's. */
export function priceTable(section: ObservabilitySection): Readonly<Record<string, ModelPrice>> {
  return { ...BUILTIN_PRICES, ...section.prices };
}
