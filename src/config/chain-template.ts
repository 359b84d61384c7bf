/**
 * Task templates of chain agents: text with `{{input}}` (the chain's input), `{{previous}}` (the
 * output of the stage before) and `{{stages.NAME.output}}` (an earlier stage's output). Parsed
 * once when the config is checked, so a run never meets a placeholder it cannot fill.
 */
export type TemplatePart =
  | { kind: "text"; text: string }
  | { kind: "input" }
  | { kind: "previous" }
  | { kind: "stage"; stage: string };

export type ParsedTemplate = { ok: true; parts: TemplatePart[] } | { ok: false; message: string };

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const STAGE_OUTPUT = /^stages\.([a-z][a-z0-9_-]*)\.output$/;

export function parseTemplate(source: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? "";
    if (match.index > last) parts.push({ kind: "text", text: source.slice(last, match.index) });
    last = match.index + match[0].length;
    if (name === "input") parts.push({ kind: "input" });
    else if (name === "previous") parts.push({ kind: "previous" });
    else {
      const stage = STAGE_OUTPUT.exec(name)?.[1];
      if (!stage) {
        return {
          ok: false,
          message: `unknown placeholder '{{${name}}}'; use {{input}}, {{previous}} or {{stages.NAME.output}}`,
        };
      }
      parts.push({ kind: "stage", stage });
    }
  }
  if (last < source.length) parts.push({ kind: "text", text: source.slice(last) });
  return { ok: true, parts };
}

/** The stages a template reads, in order of appearance. */
export function stagesNamed(parts: readonly TemplatePart[]): string[] {
  return parts.flatMap((part) => (part.kind === "stage" ? [part.stage] : []));
}

export interface TemplateValues {
  input: string;
  /** The output of the stage before this one ("" for the first stage). */
  previous: string;
  /** Outputs of the stages that ran, by name. */
  stages: ReadonlyMap<string, string>;
}

export function renderTemplate(parts: readonly TemplatePart[], values: TemplateValues): string {
  const fill = (part: TemplatePart): string => {
    switch (part.kind) {
      case "text":
        return part.text;
      case "input":
        return values.input;
      case "previous":
        return values.previous;
      case "stage":
        return values.stages.get(part.stage) ?? "";
    }
  };
  return parts.map(fill).join("");
}
