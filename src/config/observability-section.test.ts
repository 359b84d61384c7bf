import { describe, expect, it } from "vitest";
import { checkConfig } from "./config-file.js";
import { BUILTIN_PRICES, priceTable } from "./observability-section.js";

describe("the observability section", () => {
  it("adds and corrects model prices on top of the built-in table", () => {
    const checked = checkConfig({
      observability: {
        metrics: "open",
        prices: {
          "ollama/llama3.2": { input_per_million: 0, output_per_million: 0 },
          "openai/gpt-4o": { input_per_million: 1, output_per_million: 2 },
        },
      },
    });
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    const prices = priceTable(checked.config.observability);
    expect(prices["ollama/llama3.2"]).toEqual({ input_per_million: 0, output_per_million: 0 });
    expect(prices["openai/gpt-4o"]).toEqual({ input_per_million: 1, output_per_million: 2 });
    expect(prices["openai/gpt-4.1-mini"]).toEqual(BUILTIN_PRICES["openai/gpt-4.1-mini"]);
    expect(checked.config.observability.metrics).toBe("open");
  });

  it("refuses unknown fields, negative prices and handles without a provider, with paths", () => {
    const checked = checkConfig({
      observability: {
        metrics: "sometimes",
        prices: {
          "openai/gpt-4o": { input_per_million: -1, output_per_million: 2, per_call: 3 },
          "gpt-4o": { input_per_million: 1, output_per_million: 2 },
        },
      },
    });
    expect(checked.ok).toBe(false);
    const paths = checked.ok ? [] : checked.errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "observability.metrics",
        "observability.prices.openai/gpt-4o.input_per_million",
        "observability.prices.gpt-4o",
      ]),
    );
    expect(paths.some((path) => path.startsWith("observability.prices.openai/gpt-4o"))).toBe(true);
  });
});
