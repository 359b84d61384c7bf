/** Types of builtins-by-call.mjs, for its test. */
export const HELPERS: string;
export const BUILTIN_IMPORT: RegExp;
export function builtinImportAsCall(statement: string, clause: string, specifier: string): string;
export const builtinsByCall: {
  name: string;
  renderChunk(code: string): { code: string; map: null };
};
