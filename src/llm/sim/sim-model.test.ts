import { describe, expect, it } from "vitest";
import { createModel } from "../create-model.js";
import type { ModelRequest } from "../model.js";
import { ModelError } from "../model-error.js";
import { createSimModel, type SimModel } from "./sim-model.js";

const request = (content: string, tools: string[] = []): ModelRequest => ({
  system: "",
  messages: [{ role: "user", content }],
  tools: tools.map((name) => ({
    name,
    description: "",
    parameters: { type: "object", properties: {} },
  })),
});

describe("the sim model", () => {
  it("keeps no requests when told not to, and still numbers its calls", async () => {
    const calls: number[] = [];
    const model = createSimModel({
      remember: false,
      script: (_request, call) => {
        calls.push(call);
        return { text: `reply ${call}` };
      },
    });
    for (let i = 0; i < 3; i += 1) await model.generate(request(`q${i}`));
    expect(calls).toEqual([0, 1, 2]);
    expect(model.requests).toEqual([]);
  });

  it("keeps none when the server creates it (a long conversation would grow with its square)", async () => {
    const model = createModel("sim/demo") as SimModel;
    await model.generate(request("hello"));
    expect(model.requests).toEqual([]);
  });

  it("injects the same faults for the same seed, and none at rate 0", async () => {
    const outcomes = async (seed: number, rate: number) => {
      const model = createSimModel({
        randomFaults: { seed, rate, kinds: ["timeout", "rate_limit"] },
      });
      const out: string[] = [];
      for (let i = 0; i < 50; i += 1) {
        out.push(
          await model.generate(request("hi")).then(
            () => "ok",
            (e: ModelError) => e.kind,
          ),
        );
      }
      return out;
    };
    const a = await outcomes(7, 0.3);
    expect(await outcomes(7, 0.3)).toEqual(a);
    expect(a).toContain("timeout");
    expect(a).toContain("rate_limit");
    expect(a).toContain("ok");
    expect(await outcomes(7, 0)).toEqual(Array(50).fill("ok"));
  });

  it("marks rate limits retryable with a retry-after, and its faults as ModelErrors", async () => {
    const model = createSimModel({ fault: () => "rate_limit" });
    const error = await model.generate(request("hi")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 1000 });
  });

  it("never calls a tool it was not offered", async () => {
    const model = createSimModel({ script: [{ toolCalls: [{ name: "shell", args: {} }] }] });
    const response = await model.generate(request("run: ls"));
    expect(response.toolCalls).toEqual([]);
  });

  it("streams text and tool-call fragments that add up to the response", async () => {
    const model = createSimModel({
      script: [{ text: "a b c", toolCalls: [{ name: "t", args: { x: 1 } }] }],
    });
    const deltas: string[] = [];
    const response = await model.generate(request("go", ["t"]), (d) =>
      deltas.push(d.type === "tool_call" ? `call:${d.argumentsDelta}` : `${d.type}:${d.text}`),
    );
    expect(deltas).toEqual(["text:a ", "text:b ", "text:c", 'call:{"x"', "call::1}"]);
    expect(response.toolCalls[0]?.arguments).toBe('{"x":1}');
  });
});
