import type { ParameterSchema } from "../tool-declaration.js";

type Property = Record<string, unknown>;

export const str = (description: string): Property => ({ type: "string", description });
export const int = (description: string, minimum = 0): Property => ({
  type: "integer",
  minimum,
  description,
});
export const strList = (description: string): Property => ({
  type: "array",
  items: { type: "string" },
  description,
});

/** An object schema whose properties are required unless listed in `optional`. */
export function params(
  properties: Record<string, Property>,
  optional: readonly string[] = [],
): ParameterSchema {
  const required = Object.keys(properties).filter((name) => !optional.includes(name));
  return { type: "object", properties, required };
}
