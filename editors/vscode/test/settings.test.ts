import assert from "node:assert/strict";
import { test } from "node:test";

import {
  answerConfiguration,
  EXTENSION_KEYS,
  needsRestart,
  SERVER_KEYS,
  serverSettings,
  trustedWorkspaces,
} from "../src/settings";
import { defaults, packageJson } from "./packageJson";

test("SERVER_KEYS and EXTENSION_KEYS are exactly package.json's settings", () => {
  const contributed = Object.keys(packageJson.contributes.configuration.properties).sort();
  const expected = [...SERVER_KEYS, ...EXTENSION_KEYS].map((k) => `offload-ls.${k}`).sort();
  assert.deepEqual(contributed, expected);
  assert.ok(!SERVER_KEYS.includes("trustedWorkspaces"));
});

test("package.json defaults become the flat settings object, untrusted", () => {
  const d = defaults();
  const flat = serverSettings((key) => d.get(key), false, ["/home/u/proj"]);
  assert.deepEqual(flat, {
    rules: {},
    debounceMs: 0,
    scanWorkspace: true,
    maxFileBytes: 8388608,
    checkOnSave: true,
    transferPlan: true,
    rustc: null,
    cargo: null,
    gpuTarget: "nvptx64-nvidia-cuda",
    gpuArch: null,
    device: null,
    deviceImage: null,
    compileTimeoutS: 300,
    runTimeoutS: 300,
    runTarget: null,
    runTargets: {},
    trustedWorkspaces: [],
  });
});

test("a trusted workspace trusts exactly its folders", () => {
  const flat = serverSettings(() => undefined, true, ["/a/one", "/b/two"]);
  assert.deepEqual(flat, { trustedWorkspaces: ["/a/one", "/b/two"] });
  assert.deepEqual(trustedWorkspaces(true, []), []);
  assert.deepEqual(trustedWorkspaces(false, ["/a"]), []);
});

test("the extension's nested keys never reach the server; values are copies", () => {
  const rules = Object.freeze({ raw_pointer_kernel_param: "deny" });
  const asked: string[] = [];
  const config: Record<string, unknown> = {
    rules,
    "server.path": "/opt/offload-ls",
    server: { path: "/opt/offload-ls", python: null },
    trace: { server: "verbose" },
    "trace.server": "verbose",
    debounceMs: 20,
  };
  const flat = serverSettings(
    (key) => {
      asked.push(key);
      return config[key];
    },
    false,
    [],
  );
  assert.deepEqual(flat, { rules: { raw_pointer_kernel_param: "deny" }, debounceMs: 20, trustedWorkspaces: [] });
  assert.deepEqual(asked, [...SERVER_KEYS]);
  (flat.rules as Record<string, string>).raw_pointer_kernel_param = "allow";
  assert.equal(rules.raw_pointer_kernel_param, "deny");
});

test("workspace/configuration: only section offload-ls is replaced", () => {
  const ours = { debounceMs: 5, trustedWorkspaces: ["/w"] };
  const nested = { debounceMs: 5, server: { path: null } };
  assert.deepEqual(answerConfiguration(["offload-ls", "editor", null, undefined], [nested, { tabSize: 4 }, { all: 1 }], ours), [
    ours,
    { tabSize: 4 },
    { all: 1 },
    null,
  ]);
});

test("only the server command settings need a restart", () => {
  const affects = (changed: string) => (section: string) => changed === section || changed.startsWith(`${section}.`);
  assert.equal(needsRestart(affects("offload-ls.server.path")), true);
  assert.equal(needsRestart(affects("offload-ls.server.python")), true);
  assert.equal(needsRestart(affects("offload-ls.debounceMs")), false);
  assert.equal(needsRestart(affects("offload-ls.trace.server")), false);
});

test("workspace trust: limited support, program-naming settings restricted", () => {
  const trust = packageJson.capabilities.untrustedWorkspaces;
  assert.equal(trust.supported, "limited");
  assert.deepEqual([...trust.restrictedConfigurations].sort(), [
    "offload-ls.cargo",
    "offload-ls.rustc",
    "offload-ls.server.path",
    "offload-ls.server.python",
  ]);
  assert.deepEqual(packageJson.activationEvents, ["onLanguage:rust", "workspaceContains:**/Cargo.toml"]);
});
