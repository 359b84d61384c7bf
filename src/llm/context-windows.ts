/** Used for models the table below does not know, local ones above all. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/** Known context windows, by model-name prefix; the first match wins. */
const CONTEXT_WINDOWS: readonly [RegExp, number][] = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-4o/, 128_000],
  [/^claude-/, 200_000],
  [/^gemini-/, 1_048_576],
];

/**
 * The context window of a model by its name. Routers prefix names with an organisation
 * (`openai/gpt-4o`), so only the last path segment is matched.
 */
export function contextWindowFor(model: string): number {
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  return CONTEXT_WINDOWS.find(([pattern]) => pattern.test(name))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
