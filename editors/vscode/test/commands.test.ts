import assert from "node:assert/strict";
import { test } from "node:test";

import {
  commandArguments,
  fillArguments,
  PALETTE_COMMANDS,
  RESTART_COMMAND,
  resultText,
  SHOW_ASSEMBLY_PALETTE,
  runOutputLine,
  SERVER_COMMANDS,
  targetUri,
} from "../src/commands";
import { packageJson } from "./packageJson";

const file = (p: string) => ({ scheme: "file", toString: () => `file://${p}` });

test("palette commands: exactly the contributed ones, none named like a server command", () => {
  const contributed = packageJson.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual(contributed, [...Object.keys(PALETTE_COMMANDS), RESTART_COMMAND, SHOW_ASSEMBLY_PALETTE].sort());
  // languageclient registers every server command name itself (executeCommandProvider):
  // a contributed command of the same name would clash with it.
  const server = new Set<string>(Object.values(SERVER_COMMANDS));
  assert.deepEqual(contributed.filter((c) => server.has(c)), []);
  assert.deepEqual(Object.values(PALETTE_COMMANDS).sort(), [...server].sort());
  const titles = Object.fromEntries(packageJson.contributes.commands.map((c) => [c.command, c.title]));
  assert.equal(titles["offload-ls.vscode.build"], "Build for GPU");
  assert.equal(titles["offload-ls.vscode.run"], "Run on GPU");
});

test("the target URI: the active file, else the first file folder", () => {
  assert.equal(targetUri(file("/w/src/main.rs"), [file("/w")]), "file:///w/src/main.rs");
  assert.equal(targetUri({ scheme: "untitled", toString: () => "untitled:Untitled-1" }, [file("/w")]), "file:///w");
  assert.equal(targetUri({ scheme: "output", toString: () => "output:x" }, [{ scheme: "vscode-vfs", toString: () => "vscode-vfs://r" }, file("/w2")]), "file:///w2");
  assert.equal(targetUri(undefined, []), undefined);
});

test("executeCommand arguments: one {uri} object; doctor takes none", () => {
  assert.deepEqual(commandArguments("offload-ls.build", "file:///w/src/main.rs"), [{ uri: "file:///w/src/main.rs" }]);
  assert.deepEqual(commandArguments("offload-ls.run", "file:///w"), [{ uri: "file:///w" }]);
  assert.deepEqual(commandArguments("offload-ls.showRunReport", "file:///w"), [{ uri: "file:///w" }]);
  assert.deepEqual(commandArguments("offload-ls.cancel", "file:///w"), [{ uri: "file:///w" }]);
  assert.deepEqual(commandArguments("offload-ls.doctor", "file:///w"), []);
  assert.deepEqual(commandArguments("offload-ls.doctor", undefined), []);
  assert.equal(commandArguments("offload-ls.build", undefined), undefined);
});

test("lens arguments are kept; missing ones are filled in", () => {
  const lens = [{ uri: "file:///w/src/main.rs" }];
  assert.deepEqual(fillArguments("offload-ls.run", lens, "file:///other"), lens);
  assert.deepEqual(fillArguments("offload-ls.run", [], "file:///w"), [{ uri: "file:///w" }]);
  assert.deepEqual(fillArguments("offload-ls.doctor", [], "file:///w"), []);
  assert.deepEqual(fillArguments("offload-ls.build", [], undefined), []);
});

test("run results: the report text, or the refusal", () => {
  const report = { ok: true, exitStatus: 0, report: "run of lint-gallery: OK\n  1 launch" };
  assert.equal(resultText("offload-ls.run", report), "run of lint-gallery: OK\n  1 launch");
  assert.equal(resultText("offload-ls.showRunReport", { ok: false, error: "no run yet: use offload-ls.run first" }), "no run yet: use offload-ls.run first");
  assert.equal(resultText("offload-ls.build", { ok: true, exe: "/w/target/x" }), undefined);
  assert.equal(resultText("offload-ls.profile", { ok: true, report: "profile (runtime log)\n  runtime ..." }),
    "profile (runtime log)\n  runtime ...");
  assert.equal(resultText("offload-ls.run", null), undefined);
  assert.equal(resultText("offload-ls.run", { ok: true }), undefined);
});

test("runOutput lines: stdout as is, stderr marked", () => {
  assert.equal(runOutputLine({ uri: "file:///w/Cargo.toml", stream: "stdout", line: "sum = 42" }), "sum = 42");
  assert.equal(runOutputLine({ uri: "file:///w/Cargo.toml", stream: "stderr", line: "warning" }), "[stderr] warning");
  assert.equal(runOutputLine({ stream: "stdout" }), undefined);
  assert.equal(runOutputLine(null), undefined);
});
