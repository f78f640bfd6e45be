/**
 * Stdio smoke test against the REAL Python server, through vscode-languageserver-protocol
 * (what vscode-languageclient speaks): resolve the server command with the extension's own
 * resolver and probes, start `<python3> -m offload_ls serve`, initialize with the settings
 * the extension would send (package.json defaults, untrusted), open
 * examples/lint-gallery/src/main.rs, check the `raw_pointer_kernel_param` diagnostics'
 * exact ranges and messages, the trust mapping (build refused while untrusted, not refused
 * once trust is granted through didChangeConfiguration + workspace/configuration),
 * the doctor's report in the status bar, then shutdown/exit.
 *
 * Needs python3 with offload_ls installed (`pip install -e .` at the repository root).
 * Run: `npm run test:smoke` (compiles to out/test/smoke.js and runs it with node --test).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";

import {
  ConfigurationRequest,
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShowMessageNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgressCreateRequest,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node";

import { ASSEMBLY } from "../src/assembly";
import { SERVER_COMMANDS } from "../src/commands";
import { nodeProbes } from "../src/probe";
import { resolveServerCommand } from "../src/serverCommand";
import { answerConfiguration, SECTION, serverSettings } from "../src/settings";
import { doctorStatus } from "../src/status";
import { defaults, EXTENSION_ROOT, packageJson } from "./packageJson";

const REPO = path.resolve(EXTENSION_ROOT, "..", "..");
const GALLERY = path.join(REPO, "examples", "lint-gallery");
const MAIN_RS = path.join(GALLERY, "src", "main.rs");
const TIMEOUT_MS = 60_000;

const scratch = mkdtempSync(path.join(os.tmpdir(), "offload-ls-smoke-"));
let proc: ChildProcess | undefined;
let connection: ProtocolConnection | undefined;
after(() => {
  connection?.dispose();
  if (proc && proc.exitCode === null && proc.signalCode === null) {
    proc.kill("SIGKILL");
  }
  rmSync(scratch, { recursive: true, force: true });
});

/** Wait until `check()` returns a value (polled on every message), or fail after `ms`. */
function waitFor<T>(what: string, check: () => T | undefined, ms = TIMEOUT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      const value = check();
      if (value !== undefined) {
        resolve(value);
      } else if (Date.now() - started > ms) {
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      } else {
        setTimeout(tick, 20);
      }
    };
    tick();
  });
}

test("the extension's resolver finds the Python server", async () => {
  const explicit = await resolveServerCommand({ python: "python3" }, nodeProbes);
  assert.equal(explicit.ok, true, explicit.ok ? "" : explicit.message);
  assert.ok(explicit.ok && path.isAbsolute(explicit.command));
  assert.deepEqual(explicit.ok && explicit.args, ["-m", "offload_ls", "serve"]);
  const byDefault = await resolveServerCommand({}, nodeProbes);
  assert.equal(byDefault.ok, true, byDefault.ok ? "" : byDefault.message);
});

test("python3 -m offload_ls over stdio: diagnostics, trust, doctor, shutdown", async (t) => {
  const resolution = await resolveServerCommand({ python: "python3" }, nodeProbes);
  assert.ok(resolution.ok);

  // Two workspace folders: the lint gallery (linted, never built here) and a scratch
  // folder with a broken crate, to see trust reach the server without compiling anything.
  const broken = path.join(scratch, "broken");
  rmSync(broken, { recursive: true, force: true });
  mkdirSync(path.join(broken, "src"), { recursive: true });
  writeFileSync(path.join(broken, "Cargo.toml"), "this is not [[[ toml\n");
  writeFileSync(path.join(broken, "src", "main.rs"), "fn main() {}\n");
  const folders = [GALLERY, scratch];
  const d = defaults();
  const get = (key: string) => (key === "checkOnSave" ? false : d.get(key));
  let trusted = false;
  const flat = () => serverSettings(get, trusted, folders);

  let stderr = "";
  proc = spawn(resolution.command, resolution.args, { cwd: scratch, stdio: ["pipe", "pipe", "pipe"] });
  proc.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => proc!.on("exit", (code) => resolve(code)));
  const conn = createProtocolConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
  connection = conn;

  const configAnswers: unknown[][] = [];
  const shown: string[] = [];
  const logged: string[] = [];
  const published = new Map<string, PublishDiagnosticsParams>();
  conn.onRequest(ConfigurationRequest.type, (params) => {
    const sections = params.items.map((i) => i.section);
    const answer = answerConfiguration(sections, sections.map(() => null), flat());
    configAnswers.push(answer);
    return answer;
  });
  conn.onRequest(WorkDoneProgressCreateRequest.type, () => undefined);
  conn.onRequest(RegistrationRequest.type, () => undefined);
  conn.onNotification(ShowMessageNotification.type, (p) => {
    shown.push(p.message);
  });
  conn.onNotification(LogMessageNotification.type, (p) => {
    logged.push(p.message);
  });
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
    published.set(p.uri, p);
  });
  conn.listen();

  const init = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(GALLERY).href,
    workspaceFolders: folders.map((f) => ({ uri: pathToFileURL(f).href, name: path.basename(f) })),
    capabilities: {
      workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true } },
      window: { workDoneProgress: true },
      textDocument: { publishDiagnostics: { relatedInformation: true }, synchronization: { didSave: true } },
    },
    initializationOptions: flat(),
  });
  // languageclient registers each of these as a VS Code command; the palette's ids differ.
  const serverCommands = [...(init.capabilities.executeCommandProvider?.commands ?? [])].sort();
  // the palette's commands, plus the assembly view's (run by the extension's own command)
  assert.deepEqual(serverCommands, [...Object.values(SERVER_COMMANDS), ASSEMBLY].sort());
  const contributed = new Set(packageJson.contributes.commands.map((c) => c.command));
  assert.deepEqual(serverCommands.filter((c) => contributed.has(c)), []);

  await conn.sendNotification(InitializedNotification.type, {});
  await waitFor("workspace/configuration after initialized", () => (configAnswers.length >= 1 ? true : undefined));
  assert.deepEqual((configAnswers[0]![0] as Record<string, unknown>).trustedWorkspaces, []);

  const text = readFileSync(MAIN_RS, "utf8");
  const uri = pathToFileURL(MAIN_RS).href;
  await conn.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: "rust", version: 1, text },
  });
  const params = await waitFor("raw_pointer_kernel_param diagnostics of main.rs", () => {
    const p = published.get(uri);
    return p && p.version === 1 && p.diagnostics.some((x) => x.code === "raw_pointer_kernel_param") ? p : undefined;
  });

  // Expected ranges from the file's text: the parameter types of `fn raw_pointers`
  // (LSP positions: 0-based lines, UTF-16 columns, as JavaScript string indexes are).
  const lines = text.split("\n");
  const line = lines.findIndex((l) => l.includes("fn raw_pointers(out: *mut [f32; N], one: *mut f32)"));
  assert.ok(line > 0, "fn raw_pointers not found in main.rs");
  const outCol = lines[line]!.indexOf("out: *mut [f32; N]") + "out: ".length;
  const oneCol = lines[line]!.indexOf("one: *mut f32") + "one: ".length;
  const raw = params.diagnostics
    .filter((x: Diagnostic) => x.code === "raw_pointer_kernel_param")
    .map((x) => ({ range: x.range, severity: x.severity, source: x.source, message: x.message }));
  assert.deepEqual(raw, [
    {
      range: { start: { line, character: outCol }, end: { line, character: outCol + "*mut [f32; N]".length } },
      severity: 2,
      source: "offload-ls",
      message:
        "kernel `raw_pointers` takes `out: *mut [f32; N]`, a raw pointer: the kernel needs `unsafe` to use it, " +
        "the compiler cannot mark it `noalias`, and the offload runtime copies it to the device and back",
    },
    {
      range: { start: { line, character: oneCol }, end: { line, character: oneCol + "*mut f32".length } },
      severity: 2,
      source: "offload-ls",
      message:
        "kernel `raw_pointers` takes `one: *mut f32`, a raw pointer to ONE `f32`: the offload runtime copies " +
        "4 bytes (a single element) to the device and back, not the buffer it points into; it is only " +
        "dereferenced: take the value as `one: &mut f32` instead",
    },
  ]);
  // The package.json defaults, sent as the extension sends them, are valid server settings.
  assert.deepEqual(logged.filter((m) => m.startsWith("settings:")), []);
  assert.deepEqual(shown.filter((m) => m.includes("problem")), []);

  // Untrusted: building is refused.
  const brokenUri = pathToFileURL(path.join(broken, "src", "main.rs")).href;
  const refused = (await conn.sendRequest(ExecuteCommandRequest.type, {
    command: SERVER_COMMANDS.build,
    arguments: [{ uri: brokenUri }],
  })) as { ok: boolean; error: string };
  assert.equal(refused.ok, false);
  assert.equal(
    refused.error,
    `offload-ls: ${broken} is not a trusted workspace; building runs its build scripts and running runs its code. ` +
      "Add it to offload-ls.trustedWorkspaces to allow this.",
  );

  // Trust granted (what onDidGrantWorkspaceTrust does): didChangeConfiguration, and the
  // server pulls workspace/configuration, now answered with the folders.
  trusted = true;
  const before = configAnswers.length;
  await conn.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: flat() } });
  await waitFor("workspace/configuration after didChangeConfiguration", () => (configAnswers.length > before ? true : undefined));
  assert.deepEqual((configAnswers[before]![0] as Record<string, unknown>).trustedWorkspaces, folders);
  const tried = (await conn.sendRequest(ExecuteCommandRequest.type, {
    command: SERVER_COMMANDS.build,
    arguments: [{ uri: brokenUri }],
  })) as { ok: boolean; error?: string };
  // Trusted now: the build is attempted, and fails on the broken Cargo.toml (or on a
  // missing offload toolchain), not on trust.
  assert.equal(tried.ok, false);
  assert.ok(!tried.error?.includes("not a trusted workspace"), tried.error);
  assert.match(tried.error ?? "", /^offload-ls: (build failed: .*Cargo\.toml|no offload-capable toolchain)/);
  t.diagnostic(`trusted build of the broken crate: ${tried.error}`);

  // The doctor's report, as the status bar shows it.
  const report = await conn.sendRequest(ExecuteCommandRequest.type, { command: SERVER_COMMANDS.doctor, arguments: [] });
  const view = doctorStatus(report);
  const pipeline = (report as { pipeline: string }).pipeline;
  assert.ok(["native", "llvm-tools", "host-only"].includes(pipeline), pipeline);
  assert.match(view.text, new RegExp(`^offload: ${pipeline} · `));
  t.diagnostic(`status bar: ${view.text}`);

  await conn.sendRequest(ShutdownRequest.type);
  await conn.sendNotification(ExitNotification.type);
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([exited, new Promise<string>((r) => (timer = setTimeout(() => r("still running"), 10_000)))]);
  clearTimeout(timer);
  assert.equal(code, 0, `server exit: ${code}; stderr:\n${stderr}`);
});
