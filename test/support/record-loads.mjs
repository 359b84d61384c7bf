// Preloaded with `--import` by test/serve-loads.test.ts: appends the URL of every module the
// process resolves (ES imports and require calls alike) to $HOLDFAST_RECORD_LOADS.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const out = process.env.HOLDFAST_RECORD_LOADS;
if (out) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      appendFileSync(out, `${resolved.url}\n`);
      return resolved;
    },
  });
}
