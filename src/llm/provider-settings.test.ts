import { describe, expect, it } from "vitest";
import {
  checkProviderReady,
  hasAnyProviderKey,
  ProviderSettings,
  resolveProviderEndpoint,
} from "./provider-settings.js";

describe("resolveProviderEndpoint", () => {
  it("reads keys and base URLs from the conventional env names", () => {
    const env = { OPENAI_API_KEY: "sk-env", OPENAI_BASE_URL: "http://proxy/v1" };
    expect(resolveProviderEndpoint("openai", {}, env)).toEqual({
      apiKey: "sk-env",
      baseUrl: "http://proxy/v1",
    });
    expect(resolveProviderEndpoint("anthropic", {}, { ANTHROPIC_API_KEY: "a" })).toEqual({
      apiKey: "a",
    });
    expect(resolveProviderEndpoint("google", {}, { GOOGLE_GENERATIVE_AI_API_KEY: "g" })).toEqual({
      apiKey: "g",
    });
    const compatible = {
      OPENAI_COMPATIBLE_BASE_URL: "http://vllm:8000/v1",
      OPENAI_COMPATIBLE_API_KEY: "c",
    };
    expect(resolveProviderEndpoint("openai-compatible", {}, compatible)).toEqual({
      apiKey: "c",
      baseUrl: "http://vllm:8000/v1",
    });
  });

  it("prefers the explicit settings over the env", () => {
    const settings = { openai: { apiKey: "sk-settings" } };
    expect(resolveProviderEndpoint("openai", settings, { OPENAI_API_KEY: "sk-env" }).apiKey).toBe(
      "sk-settings",
    );
  });

  it("treats an empty env variable as unset", () => {
    expect(resolveProviderEndpoint("openai", {}, { OPENAI_API_KEY: "" })).toEqual({});
  });

  it("reaches Ollama through its OpenAI-compatible /v1 endpoint, on localhost by default", () => {
    expect(resolveProviderEndpoint("ollama", {}, {})).toEqual({
      baseUrl: "http://localhost:11434/v1",
    });
    expect(resolveProviderEndpoint("ollama", {}, { OLLAMA_BASE_URL: "http://gpu:11434/" })).toEqual(
      {
        baseUrl: "http://gpu:11434/v1",
      },
    );
    expect(
      resolveProviderEndpoint("ollama", { ollama: { baseUrl: "http://box:1/v1" } }, {}).baseUrl,
    ).toBe("http://box:1/v1");
  });
});

describe("checkProviderReady", () => {
  it("says which env variable to set when a key is missing", () => {
    expect(checkProviderReady("openai/gpt-4o", {}, {})).toMatch(
      /needs an OpenAI API key: set OPENAI_API_KEY/,
    );
    expect(checkProviderReady("anthropic/claude-sonnet-4-5", {}, {})).toMatch(/ANTHROPIC_API_KEY/);
    expect(checkProviderReady("google/gemini-2.5-flash", {}, {})).toMatch(
      /needs a Google API key: set GOOGLE_GENERATIVE_AI_API_KEY/,
    );
  });

  it("asks for a base URL for an OpenAI-compatible server but not for a key", () => {
    expect(checkProviderReady("openai-compatible/m", {}, {})).toMatch(/OPENAI_COMPATIBLE_BASE_URL/);
    expect(
      checkProviderReady("openai-compatible/m", {}, { OPENAI_COMPATIBLE_BASE_URL: "http://h/v1" }),
    ).toBeUndefined();
  });

  it("rejects a base URL that is not http(s)", () => {
    const env = { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "localhost:8080" };
    expect(checkProviderReady("openai/gpt-4o", {}, env)).toMatch(/not an http\(s\) URL/);
  });

  it("is ready for sim and a default Ollama without any configuration", () => {
    expect(checkProviderReady("sim/demo", {}, {})).toBeUndefined();
    expect(checkProviderReady("ollama/llama3.2", {}, {})).toBeUndefined();
  });

  it("is ready when the key comes from the settings object", () => {
    expect(checkProviderReady("openai/gpt-4o", { openai: { apiKey: "k" } }, {})).toBeUndefined();
  });

  it("serves OpenAI Responses handles with OpenAI's key and base URL", () => {
    const settings = { openai: { apiKey: "k", baseUrl: "http://proxy/v1" } };
    expect(resolveProviderEndpoint("openai-responses", settings, {})).toEqual({
      apiKey: "k",
      baseUrl: "http://proxy/v1",
    });
    expect(checkProviderReady("openai-responses/gpt-5-mini", {}, {})).toMatch(
      /OPENAI_API_KEY or 'openai.apiKey'/,
    );
  });

  it("reads Google's base URL from GOOGLE_GENERATIVE_AI_BASE_URL", () => {
    const env = {
      GOOGLE_GENERATIVE_AI_API_KEY: "g",
      GOOGLE_GENERATIVE_AI_BASE_URL: "http://g/v1beta",
    };
    expect(resolveProviderEndpoint("google", {}, env)).toEqual({
      apiKey: "g",
      baseUrl: "http://g/v1beta",
    });
  });

  it("returns the handle's own error for a malformed handle", () => {
    expect(checkProviderReady("nope/x", {}, {})).toMatch(/known providers/);
  });
});

describe("hasAnyProviderKey", () => {
  it("is false with nothing configured, so the server can fall back to sim", () => {
    expect(hasAnyProviderKey({})).toBe(false);
    expect(hasAnyProviderKey({ OPENAI_API_KEY: "", PATH: "/bin" })).toBe(false);
  });

  it("is true for any real provider key or server URL", () => {
    expect(hasAnyProviderKey({ OPENAI_API_KEY: "k" })).toBe(true);
    expect(hasAnyProviderKey({ ANTHROPIC_API_KEY: "k" })).toBe(true);
    expect(hasAnyProviderKey({ GOOGLE_GENERATIVE_AI_API_KEY: "k" })).toBe(true);
    expect(hasAnyProviderKey({ OPENAI_COMPATIBLE_BASE_URL: "http://h/v1" })).toBe(true);
    expect(hasAnyProviderKey({ OLLAMA_BASE_URL: "http://localhost:11434" })).toBe(true);
    expect(hasAnyProviderKey({}, { anthropic: { apiKey: "k" } })).toBe(true);
  });
});

describe("ProviderSettings", () => {
  it("rejects unknown fields and non-http base URLs", () => {
    expect(ProviderSettings.safeParse({ openai: { key: "k" } }).success).toBe(false);
    expect(ProviderSettings.safeParse({ ollama: { base_url: "ftp://x" } }).success).toBe(false);
    expect(ProviderSettings.safeParse({ ollama: { base_url: "http://x:1" } }).data).toEqual({
      ollama: { baseUrl: "http://x:1" },
    });
    expect(ProviderSettings.parse({ openai: { api_key: "sk-1" } })).toEqual({
      openai: { apiKey: "sk-1" },
    });
  });
});
