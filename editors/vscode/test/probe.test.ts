import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";

import { run, which } from "../src/probe";

const dir = mkdtempSync(path.join(os.tmpdir(), "offload-ls-probe-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string, mode: number): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, mode);
  return file;
}

test("which: PATH lookup finds executable files only", { skip: process.platform === "win32" }, async () => {
  const exe = script("tool-x", "echo hi", 0o755);
  script("tool-plain", "echo hi", 0o644);
  mkdirSync(path.join(dir, "tool-dir"));
  const env = { PATH: ["/nonexistent-dir", dir].join(path.delimiter) };
  assert.equal(await which("tool-x", env), exe);
  assert.equal(await which("tool-plain", env), undefined);
  assert.equal(await which("tool-dir", env), undefined);
  assert.equal(await which("tool-missing", env), undefined);
  assert.equal(await which(exe, { PATH: "" }), exe);
  assert.equal(await which(path.join(dir, "tool-plain"), { PATH: "" }), undefined);
});

test("run: exit status, stdout and stderr; a timeout gives code null", { skip: process.platform === "win32" }, async () => {
  const ok = script("ok", "echo 'offload-ls 0.1.0'", 0o755);
  assert.deepEqual(await run(ok, ["--version"], 5000), { code: 0, stdout: "offload-ls 0.1.0\n", stderr: "" });
  const bad = script("bad", "echo 'No module named offload_ls' >&2; exit 3", 0o755);
  assert.deepEqual(await run(bad, [], 5000), { code: 3, stdout: "", stderr: "No module named offload_ls\n" });
  const slow = script("slow", "exec sleep 5", 0o755);
  const r = await run(slow, [], 200);
  assert.equal(r.code, null);
  const missing = await run(path.join(dir, "missing"), [], 1000);
  assert.equal(missing.code, null);
  assert.match(missing.stderr, /ENOENT/);
});
