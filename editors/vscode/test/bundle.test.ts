import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import Module from "node:module";
import * as path from "node:path";
import { test } from "node:test";

import { EXTENSION_ROOT, packageJson } from "./packageJson";

/** A stand-in for the `vscode` module: every property is another stand-in, callable and
 * constructible, enough for module-level code (class declarations, enums) to load. */
function stub(): unknown {
  const fn = function () {};
  return new Proxy(fn, {
    get: (target, prop) => (prop === "prototype" ? target.prototype : stub()),
    construct: () => ({}),
    apply: () => undefined,
  });
}

test("the esbuild bundle loads with only `vscode` external and exports activate/deactivate", () => {
  const main = path.join(EXTENSION_ROOT, (packageJson as unknown as { main: string }).main);
  assert.ok(existsSync(main), `${main} is missing: run \`npm run build\` first`);
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = loader._load;
  const asked: string[] = [];
  loader._load = function (request: string, ...rest: unknown[]) {
    if (request === "vscode") {
      return stub();
    }
    if (!request.startsWith("node:") && !Module.isBuiltin(request) && request !== main) {
      asked.push(request);
    }
    return original.call(this, request, ...rest);
  };
  try {
    const ext = require(main) as { activate?: unknown; deactivate?: unknown };
    assert.equal(typeof ext.activate, "function");
    assert.equal(typeof ext.deactivate, "function");
  } finally {
    loader._load = original;
  }
  // Everything but `vscode` and Node's own modules is inside the bundle.
  assert.deepEqual(asked, []);
});
