import { describe, expect, it } from "vitest";
import { startTracing } from "./tracing.js";

describe("tracing", () => {
  it("stays off, loading nothing, when no OTLP endpoint is set", async () => {
    expect(await startTracing({})).toBeNull();
    expect(await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toBeNull();
  });
});
