import assert from "node:assert/strict";
import { test } from "node:test";

import { forwardStatus, isAssemblyResult, LineMap, listingPath, runs, statusText } from "../src/assembly";

// `map` of saxpy in `offload-ls.assembly` on examples/offload-kernels (sm_90): listing lines
// of the kernel entry -> 0-based source lines (95 = `let i = ...`, 58 = `y[i] = a * x[i] + y[i]`).
const pairs: [number, number][] = [[422, 95], [425, 95], [428, 96], [431, 97], [448, 58], [449, 58], [452, 58], [455, 58]];

test("the line map answers both ways", () => {
  const map = new LineMap(pairs);
  assert.deepEqual(map.listingLines(58), [448, 449, 452, 455]);
  assert.deepEqual(map.listingLines(95), [422, 425]);
  assert.deepEqual(map.listingLines(10), []);
  assert.equal(map.sourceLine(431), 97);
  assert.equal(map.sourceLine(430), undefined);
  assert.deepEqual(map.sourceLines(), [58, 95, 96, 97]);
});

test("runs of lines for decorations", () => {
  assert.deepEqual(runs([455, 448, 449, 452]), [[448, 449], [452, 452], [455, 455]]);
  assert.deepEqual(runs([3, 3, 4]), [[3, 4]]);
  assert.deepEqual(runs([]), []);
});

test("virtual document names and results", () => {
  assert.equal(listingPath("/w/crate/src/main.rs", "saxpy", "ptx"), "/main.rs.saxpy.ptx");
  assert.equal(listingPath("/w/crate/src/main.rs", null, "llvm-ir"), "/main.rs.module.ll");
  assert.equal(isAssemblyResult({ ok: true, text: "", format: "ptx", map: [] }), true);
  assert.equal(isAssemblyResult({ ok: false, error: "no" }), false);
  assert.equal(isAssemblyResult(undefined), false);
  assert.equal(statusText("main.rs", 58), "$(file-binary) main.rs:59");
  assert.equal(statusText("main.rs", undefined), "$(file-binary) no source line");
});

test("status text for a source line lists its listing lines, 1-based", () => {
  assert.equal(forwardStatus("ptx", [448, 449, 452, 455]), "$(file-binary) ptx 449-450, 453, 456");
  assert.equal(forwardStatus("ptx", [1, 3, 5, 7, 9, 11]), "$(file-binary) ptx 2, 4, 6, 8, …");
  assert.equal(forwardStatus("ptx", []), undefined);
});
