import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { formatModelHandle, PROVIDERS, parseModelHandle } from "./handle.js";

describe("parseModelHandle", () => {
  it("splits a handle into provider and model", () => {
    expect(parseModelHandle("openai/gpt-4.1-mini")).toEqual({
      provider: "openai",
      model: "gpt-4.1-mini",
    });
    expect(parseModelHandle("sim/demo")).toEqual({ provider: "sim", model: "demo" });
  });

  it("keeps later slashes in the model name sent to an OpenAI-compatible server", () => {
    expect(parseModelHandle("openai-compatible/meta-llama/Llama-3.1-8B")).toEqual({
      provider: "openai-compatible",
      model: "meta-llama/Llama-3.1-8B",
    });
  });

  it("accepts every known provider", () => {
    for (const provider of PROVIDERS) {
      expect(parseModelHandle(`${provider}/m`).provider).toBe(provider);
    }
  });

  it("rejects an unknown provider with a message listing the known ones", () => {
    const error = (() => {
      try {
        parseModelHandle("mistral/large");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    const message = (error as ValidationError).message;
    expect(message).toContain("unknown model provider 'mistral'");
    for (const provider of PROVIDERS) expect(message).toContain(provider);
    expect((error as ValidationError).errors).toEqual([{ path: "model", message }]);
  });

  it("suggests the lowercase provider when only the case is wrong", () => {
    expect(() => parseModelHandle("OpenAI/gpt-4o")).toThrow("did you mean 'openai'?");
  });

  it("rejects a handle without a slash, without a model, or with surrounding spaces", () => {
    expect(() => parseModelHandle("gpt-4o")).toThrow(ValidationError);
    expect(() => parseModelHandle("openai/")).toThrow("names no model");
    expect(() => parseModelHandle(" openai/gpt-4o")).toThrow("surrounding spaces");
    expect(() => parseModelHandle("")).toThrow(ValidationError);
  });

  it("reports the field path it was given", () => {
    expect(() => parseModelHandle("x", "agent.model")).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ path: "agent.model" })] }),
    );
  });

  it("formats a parsed handle back to the same string", () => {
    const handle = "ollama/qwen2.5:7b";
    expect(formatModelHandle(parseModelHandle(handle))).toBe(handle);
  });
});
