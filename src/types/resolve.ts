import type { FieldError } from "../core/errors.js";
import { fieldErrorsFromZod, formatPath } from "../core/field-errors.js";
import type { ToolCatalogue } from "../tools/catalogue.js";
import type { AgentType } from "./agent-type.js";
import { type AgentTypeDraft, completeType, type TypeDefaults } from "./agent-type-draft.js";
import { SYSTEM_DEFAULTS } from "./defaults.js";

/** A draft to resolve, with where it was written so that errors can point at it. */
export interface DraftSource {
  readonly name: string;
  readonly draft: AgentTypeDraft;
  readonly path: readonly PropertyKey[];
}

export interface Resolution {
  readonly types: AgentType[];
  readonly errors: FieldError[];
}

/**
 * Resolves every draft into a full agent type. Layers, lowest first: the system defaults, the
 * config `defaults`, the chain of extended types from the root down, the type itself. A type
 * with an unknown `extends`, a cycle of `extends`, or an unknown tool or pack is not resolved;
 * each problem is reported once, at the field that causes it. Names in `invalid` are types
 * whose definitions failed validation: they exist, so extending them is not "unknown", but
 * neither they nor the types below them resolve.
 */
export function resolveAgentTypes(
  sources: readonly DraftSource[],
  defaults: TypeDefaults,
  catalogue: ToolCatalogue,
  invalid: ReadonlySet<string> = new Set(),
): Resolution {
  const byName = new Map(sources.map((source) => [source.name, source]));
  const errors: FieldError[] = [];
  const failed = new Set<string>(invalid);
  const fail = (source: DraftSource, field: readonly PropertyKey[], message: string) => {
    errors.push({ path: formatPath([...source.path, ...field]), message });
    failed.add(source.name);
  };

  for (const source of sources) {
    checkToolNames(source, catalogue, fail);
    const verifier = source.draft.verify?.with;
    if (verifier !== undefined && !byName.has(verifier)) {
      const known = [...byName.keys()].join(", ");
      fail(
        source,
        ["verify", "with"],
        `verify with unknown type '${verifier}'; known types: ${known}`,
      );
    }
  }
  const chains = new Map<string, DraftSource[]>();
  for (const source of sources) {
    const chain = extendsChain(source, byName, fail);
    if (chain) chains.set(source.name, chain);
  }

  const types: AgentType[] = [];
  for (const source of sources) {
    const chain = chains.get(source.name);
    if (!chain || chain.some((link) => failed.has(link.name))) continue;
    const layers = [SYSTEM_DEFAULTS, defaults, ...chain.map((link) => link.draft).reverse()];
    const result = completeType(source.name, layers);
    if (!result.success) errors.push(...fieldErrorsFromZod(result.error, source.path));
    else if (result.data.structured_output && result.data.control_flow !== "single_shot") {
      const message = `structured_output needs control_flow single_shot; '${source.name}' is ${result.data.control_flow}`;
      errors.push({ path: formatPath([...source.path, "structured_output"]), message });
    } else types.push(result.data);
  }
  return { types, errors };
}

type Fail = (source: DraftSource, field: readonly PropertyKey[], message: string) => void;

/** The type and the types it extends, nearest first; `undefined` if the chain is broken. */
function extendsChain(
  source: DraftSource,
  byName: ReadonlyMap<string, DraftSource>,
  fail: Fail,
): DraftSource[] | undefined {
  const chain = [source];
  for (let link = source; link.draft.extends !== undefined; ) {
    const parentName = link.draft.extends;
    const parent = byName.get(parentName);
    if (!parent) {
      // Only the type that names the missing parent reports it, not every type below it.
      if (link === source) {
        const known = [...byName.keys()].join(", ");
        fail(source, ["extends"], `extends unknown type '${parentName}'; known types: ${known}`);
      }
      return undefined;
    }
    const seenAt = chain.indexOf(parent);
    if (seenAt !== -1) {
      if (seenAt === 0) {
        const cycle = [...chain, parent].map((member) => member.name).join(" → ");
        fail(source, ["extends"], `extends cycle: ${cycle}`);
      }
      return undefined;
    }
    chain.push(parent);
    link = parent;
  }
  return chain;
}

/** Reports every pack or tool a draft names that the catalogue does not have. */
function checkToolNames(source: DraftSource, catalogue: ToolCatalogue, fail: Fail): void {
  const tools = source.draft.tools ?? {};
  tools.packs?.forEach((pack, i) => {
    if (!catalogue.packs.has(pack)) {
      const known = [...catalogue.packs.keys()].join(", ");
      fail(source, ["tools", "packs", i], `unknown tool pack '${pack}'; known packs: ${known}`);
    }
  });
  for (const list of ["include", "allow", "deny"] as const) {
    tools[list]?.forEach((tool, i) => {
      if (!catalogue.tools.has(tool)) fail(source, ["tools", list, i], `unknown tool '${tool}'`);
    });
  }
}
