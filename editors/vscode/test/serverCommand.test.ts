import assert from "node:assert/strict";
import { test } from "node:test";

import { INSTALL_HINT, resolveServerCommand, VERSION_TIMEOUT_MS, type Probes, type RunResult } from "../src/serverCommand";

/** Fake probes: `files` maps a name or path to its absolute path; `results` maps
 * `"<abs> <args...>"` to the run result (absent: exit 0). Records every call. */
function fake(files: Record<string, string>, results: Record<string, RunResult> = {}) {
  const calls: string[] = [];
  const probes: Probes = {
    async which(cmd) {
      calls.push(`which ${cmd}`);
      return files[cmd];
    },
    async run(command, args, timeoutMs) {
      assert.equal(timeoutMs, VERSION_TIMEOUT_MS);
      const key = [command, ...args].join(" ");
      calls.push(`run ${key}`);
      return results[key] ?? { code: 0, stdout: "offload-ls 0.1.0\n", stderr: "" };
    },
  };
  return { probes, calls };
}

const noModule: RunResult = {
  code: 1,
  stdout: "",
  stderr: "Traceback (most recent call last):\n  ...\n/usr/bin/python3: No module named offload_ls\n",
};

test("default: offload-ls on PATH, checked with --version", async () => {
  const { probes, calls } = fake({ "offload-ls": "/usr/local/bin/offload-ls" });
  const r = await resolveServerCommand({}, probes);
  assert.deepEqual(r, {
    ok: true,
    command: "/usr/local/bin/offload-ls",
    args: ["serve"],
    description: "offload-ls on PATH: /usr/local/bin/offload-ls",
  });
  assert.deepEqual(calls, ["which offload-ls", "run /usr/local/bin/offload-ls --version"]);
});

test("default: python3 -m offload_ls when offload-ls is not on PATH", async () => {
  const { probes, calls } = fake({ python3: "/usr/bin/python3" });
  const r = await resolveServerCommand({ path: null, python: "" }, probes);
  assert.deepEqual(r, {
    ok: true,
    command: "/usr/bin/python3",
    args: ["-m", "offload_ls", "serve"],
    description: "python3 on PATH: /usr/bin/python3 -m offload_ls",
  });
  assert.deepEqual(calls, ["which offload-ls", "which python3", "run /usr/bin/python3 -m offload_ls --version"]);
});

test("default: a broken offload-ls shim and a python3 without the package are skipped", async () => {
  const { probes } = fake(
    { "offload-ls": "/home/u/.pyenv/shims/offload-ls", python3: "/usr/bin/python3", python: "/opt/py/bin/python" },
    {
      "/home/u/.pyenv/shims/offload-ls --version": { code: 127, stdout: "", stderr: "pyenv: offload-ls: command not found\n" },
      "/usr/bin/python3 -m offload_ls --version": noModule,
    },
  );
  const r = await resolveServerCommand({}, probes);
  assert.equal(r.ok, true);
  assert.deepEqual(r.ok && [r.command, ...r.args], ["/opt/py/bin/python", "-m", "offload_ls", "serve"]);
});

test("nothing works: an error with every candidate and the install command", async () => {
  const { probes } = fake({ python3: "/usr/bin/python3" }, { "/usr/bin/python3 -m offload_ls --version": noModule });
  const r = await resolveServerCommand({}, probes);
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.deepEqual(r.tried, [
    "offload-ls: not found (no executable file of that name on PATH or at that path)",
    "python3 -m offload_ls: `/usr/bin/python3 -m offload_ls --version` failed (exit status 1: /usr/bin/python3: No module named offload_ls)",
    "python -m offload_ls: not found (no executable file of that name on PATH or at that path)",
  ]);
  assert.equal(
    INSTALL_HINT,
    "in the workspace folder, run `python3 -m venv .venv && .venv/bin/pip install /pa" +
      "th/to/offload-ls` (an offload-ls checkout; it is not on PyPI), then reload the window",
  );
  assert.equal(
    r.message,
    "The offload-ls language server was not found. Install the server: " +
      INSTALL_HINT +
      ", " +
      "or set offload-ls.server.path (a command) or offload-ls.server.python (an interpreter). " +
      `Tried: ${r.tried.join("; ")}.`,
  );
});

test("server.path wins over server.python and is run with serve", async () => {
  const { probes, calls } = fake({ "~/bin/ols": "/home/u/bin/ols", "/opt/py": "/opt/py" });
  const r = await resolveServerCommand({ path: " ~/bin/ols ", python: "/opt/py" }, probes);
  assert.deepEqual(r, { ok: true, command: "/home/u/bin/ols", args: ["serve"], description: "offload-ls.server.path: /home/u/bin/ols" });
  assert.deepEqual(calls, ["which ~/bin/ols", "run /home/u/bin/ols --version"]);
});

test("a server.path that does not exist is an error, with no fallback", async () => {
  const { probes, calls } = fake({ "offload-ls": "/usr/bin/offload-ls" });
  const r = await resolveServerCommand({ path: "/nope/offload-ls" }, probes);
  assert.equal(r.ok, false);
  assert.ok(!r.ok && r.message.startsWith('offload-ls.server.path is "/nope/offload-ls", which does not work. Install the server: in the workspace folder, run `python3 -m venv .venv'));
  assert.deepEqual(!r.ok && r.tried, ["/nope/offload-ls: not found (no executable file of that name on PATH or at that path)"]);
  assert.deepEqual(calls, ["which /nope/offload-ls"]);
});

test("server.python: -m offload_ls --version must succeed", async () => {
  const ok = fake({ "/venv/bin/python": "/venv/bin/python" });
  assert.deepEqual(await resolveServerCommand({ python: "/venv/bin/python" }, ok.probes), {
    ok: true,
    command: "/venv/bin/python",
    args: ["-m", "offload_ls", "serve"],
    description: "offload-ls.server.python: /venv/bin/python -m offload_ls",
  });
  const bad = fake({ "/usr/bin/python3": "/usr/bin/python3" }, { "/usr/bin/python3 -m offload_ls --version": noModule });
  const r = await resolveServerCommand({ python: "/usr/bin/python3" }, bad.probes);
  assert.deepEqual(!r.ok && r.tried, [
    "/usr/bin/python3 -m offload_ls: `/usr/bin/python3 -m offload_ls --version` failed (exit status 1: /usr/bin/python3: No module named offload_ls)",
  ]);
  assert.ok(!r.ok && r.message.startsWith('offload-ls.server.python is "/usr/bin/python3", which cannot run offload_ls.'));
  assert.deepEqual(bad.calls, ["which /usr/bin/python3", "run /usr/bin/python3 -m offload_ls --version"]);
});

test("a --version that does not finish counts as failed", async () => {
  const { probes } = fake({ "/slow": "/slow" }, { "/slow --version": { code: null, stdout: "", stderr: "" } });
  const r = await resolveServerCommand({ path: "/slow" }, probes);
  assert.deepEqual(!r.ok && r.tried, ["/slow: `/slow --version` failed (did not finish)"]);
});

test("no setting: the workspace's .venv, then venv, before the Python extension's interpreter and PATH", async () => {
  const { probes, calls } = fake({
    "/w/a/venv/bin/offload-ls": "/w/a/venv/bin/offload-ls",
    "/opt/py/bin/python": "/opt/py/bin/python",
    "offload-ls": "/usr/bin/offload-ls",
  });
  const r = await resolveServerCommand({ workspaceFolders: ["/w/a/"], selectedPython: "/opt/py/bin/python" }, probes);
  assert.deepEqual(r, {
    ok: true,
    command: "/w/a/venv/bin/offload-ls",
    args: ["serve"],
    description: "the workspace's venv: /w/a/venv/bin/offload-ls",
  });
  assert.deepEqual(calls, [
    "which /w/a/.venv/bin/offload-ls",
    "which /w/a/venv/bin/offload-ls",
    "run /w/a/venv/bin/offload-ls --version",
  ]);
});

test("no setting: the Python extension's interpreter, then PATH, then ~/.local/bin", async () => {
  const selected = fake(
    { "/opt/py/bin/python": "/opt/py/bin/python", "offload-ls": "/usr/bin/offload-ls" },
  );
  const r1 = await resolveServerCommand({ workspaceFolders: ["/w"], selectedPython: "/opt/py/bin/python" }, selected.probes);
  assert.deepEqual(r1.ok && [r1.command, ...r1.args, r1.description], [
    "/opt/py/bin/python", "-m", "offload_ls", "serve",
    "the Python extension's interpreter: /opt/py/bin/python -m offload_ls",
  ]);

  // the selected interpreter lacks the package and PATH has no offload-ls: pipx's ~/.local/bin
  const local = fake(
    { "/opt/py/bin/python": "/opt/py/bin/python", "/home/u/.local/bin/offload-ls": "/home/u/.local/bin/offload-ls" },
    { "/opt/py/bin/python -m offload_ls --version": noModule },
  );
  const r2 = await resolveServerCommand({ selectedPython: "/opt/py/bin/python", home: "/home/u" }, local.probes);
  assert.deepEqual(r2.ok && [r2.command, ...r2.args, r2.description], [
    "/home/u/.local/bin/offload-ls", "serve", "~/.local/bin: /home/u/.local/bin/offload-ls",
  ]);
  assert.deepEqual(local.calls, [
    "which /opt/py/bin/python",
    "run /opt/py/bin/python -m offload_ls --version",
    "which offload-ls",
    "which /home/u/.local/bin/offload-ls",
    "run /home/u/.local/bin/offload-ls --version",
  ]);
});

test("default: the server bundled in the .vsix, after the workspace's venv, run by the first Python >= 3.11", async () => {
  const launcher = "/ext/offload-ls/launcher/offload_ls_launch.py";
  const tooOld: RunResult = { code: 3, stdout: "", stderr: "offload-ls needs Python 3.11 or newer; /usr/bin/python3 is 3.9.2\n" };
  const { probes, calls } = fake(
    { "/sel/python": "/sel/python", python3: "/usr/bin/python3", python: "/opt/py/bin/python" },
    { [`/sel/python ${launcher} --version`]: tooOld, [`/usr/bin/python3 ${launcher} --version`]: tooOld },
  );
  const r = await resolveServerCommand({ workspaceFolders: ["/w"], selectedPython: "/sel/python", bundled: launcher }, probes);
  assert.deepEqual(r, {
    ok: true,
    command: "/opt/py/bin/python",
    args: [launcher, "serve"],
    description: `the server bundled in the extension, run by /opt/py/bin/python: ${launcher}`,
  });
  assert.deepEqual(calls, [
    "which /w/.venv/bin/offload-ls",
    "which /w/venv/bin/offload-ls",
    "which /sel/python",
    `run /sel/python ${launcher} --version`,
    "which python3",
    `run /usr/bin/python3 ${launcher} --version`,
    "which python",
    `run /opt/py/bin/python ${launcher} --version`,
  ]);
  // a workspace venv still wins over the bundle
  const venv = fake({ "/w/.venv/bin/offload-ls": "/w/.venv/bin/offload-ls", python3: "/usr/bin/python3" });
  const first = await resolveServerCommand({ workspaceFolders: ["/w"], bundled: launcher }, venv.probes);
  assert.equal(first.ok && first.command, "/w/.venv/bin/offload-ls");
});
