import { createRequire } from "node:module";
import type { Ajv, Options, ValidateFunction } from "ajv";
import { re2RegExp } from "../core/re2-regexp.js";

const MAX_COMPILED = 256;

/**
 * Ajv, loaded at the first schema (most servers never check one), and its compiled checks by
 * schema text, so a schema used on every call or reply is compiled once. Every instance runs
 * patterns under RE2 (checks run on the event loop: no pattern may backtrack for hours) and
 * compiles each schema on its own (`addUsedSchema: false`: two schemas with one `$id` do not
 * clash), with an `$id` given to a root without one, so `"$ref": "#"` resolves. Formats are
 * not checked; a remote `$ref` is refused by having no loader.
 */
export class SchemaCompiler {
  #ajv: Ajv | undefined;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(
    private readonly options: Pick<Options, "strict">,
    private readonly rootId: string,
  ) {}

  compile(schema: Record<string, unknown>): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.#compiled.get(key);
    if (!validate) {
      const rooted = typeof schema.$id === "string" ? schema : { ...schema, $id: this.rootId };
      validate = this.ajv().compile(rooted);
      if (this.#compiled.size >= MAX_COMPILED) this.#compiled.clear();
      this.#compiled.set(key, validate);
    }
    return validate;
  }

  ajv(): Ajv {
    if (!this.#ajv) {
      const { Ajv: AjvClass } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
      this.#ajv = new AjvClass({
        ...this.options,
        allErrors: true,
        validateFormats: false,
        addUsedSchema: false,
        code: { regExp: re2RegExp },
      });
    }
    return this.#ajv;
  }
}
