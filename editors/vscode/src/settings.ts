/**
 * Settings sent to the server: pure logic, no `vscode` import (unit-tested in
 * test/settings.test.ts).
 *
 * The server's schema is `server/offload_ls/settings.py` (attrs class `Settings`, camelCase
 * keys). VS Code's `contributes.configuration` in package.json mirrors it as
 * `offload-ls.<key>`, except `trustedWorkspaces`, which this module computes from VS Code's
 * workspace trust. tests/editors/test_vscode_settings.py keeps package.json and `Settings`
 * in step; test/settings.test.ts keeps SERVER_KEYS and package.json in step.
 */

/** The configuration section, in VS Code and in `workspace/configuration`. */
export const SECTION = "offload-ls";

/** The server's setting keys that VS Code exposes as `offload-ls.<key>` (everything in
 * `Settings` but `trustedWorkspaces`). */
export const SERVER_KEYS: readonly string[] = [
  "rules",
  "debounceMs",
  "scanWorkspace",
  "maxFileBytes",
  "checkOnSave",
  "transferPlan",
  "rustc",
  "cargo",
  "gpuTarget",
  "gpuArch",
  "device",
  "deviceImage",
  "compileTimeoutS",
  "runTimeoutS",
  "runTarget",
  "runTargets",
];

/** Settings of the extension itself (under `offload-ls.`); never sent to the server. */
export const EXTENSION_KEYS: readonly string[] = ["server.path", "server.python", "trace.server"];

/** The server setting computed from workspace trust. */
export const TRUST_KEY = "trustedWorkspaces";

/** What the server's `trustedWorkspaces` should be.
 *
 * @param isTrusted VS Code's `workspace.isTrusted`.
 * @param folderPaths the workspace folders as absolute file-system paths (`Uri.fsPath`).
 * @returns the folder paths when trusted (each crate below them may be compiled and run),
 *   `[]` when not (lints only). Never `"*"`: trust covers the open folders, nothing else.
 */
export function trustedWorkspaces(isTrusted: boolean, folderPaths: readonly string[]): string[] {
  return isTrusted ? [...folderPaths] : [];
}

/** A JSON copy of a configuration value (VS Code hands out frozen proxies). */
function plain(value: unknown): unknown {
  if (value === undefined) {
    return undefined;
  }
  return JSON.parse(JSON.stringify(value));
}

/** The flat camelCase settings object the server expects (`initializationOptions`,
 * the `workspace/configuration` answer for section `offload-ls`, and
 * `didChangeConfiguration`'s `settings["offload-ls"]`).
 *
 * @param get reads one key below `offload-ls.` (e.g. `getConfiguration("offload-ls").get`);
 *   `undefined` means unset and leaves the key out, so the server keeps its default.
 * @param isTrusted VS Code's `workspace.isTrusted`.
 * @param folderPaths absolute paths of the workspace folders.
 * @returns only SERVER_KEYS and `trustedWorkspaces`: the extension's nested keys
 *   (`server.path`, `trace.server`) are never sent.
 */
export function serverSettings(
  get: (key: string) => unknown,
  isTrusted: boolean,
  folderPaths: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const value = plain(get(key));
    if (value !== undefined) {
      out[key] = value;
    }
  }
  out[TRUST_KEY] = trustedWorkspaces(isTrusted, folderPaths);
  return out;
}

/** Answers a `workspace/configuration` request: items asking for section `offload-ls`
 * get `ours`, the others keep what VS Code answered.
 *
 * @param sections the `section` of each requested item (`undefined`/`null`: all settings).
 * @param answered VS Code's answers, one per item, in order.
 * @param ours the flat settings from {@link serverSettings}.
 */
export function answerConfiguration(
  sections: readonly (string | null | undefined)[],
  answered: readonly unknown[],
  ours: Record<string, unknown>,
): unknown[] {
  return sections.map((section, i) => (section === SECTION ? ours : answered[i] ?? null));
}

/** True if a change of configuration needs a new server process (the command that starts
 * it changed), given VS Code's `ConfigurationChangeEvent.affectsConfiguration`. */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return affects(`${SECTION}.server.path`) || affects(`${SECTION}.server.python`);
}
