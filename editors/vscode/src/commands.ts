/**
 * The palette commands and what they send to the server: pure logic, no `vscode` import
 * (unit-tested in test/commands.test.ts).
 *
 * The server advertises `offload-ls.build`, `.run`, `.profile`, `.showRunReport`, `.doctor`
 * and `.cancel` in `executeCommandProvider`, and vscode-languageclient 11 registers every such
 * name with `commands.registerCommand` (lib/common/executeCommand.js) so that the server's
 * code lenses work. Registering the same names again for the palette would throw
 * "command already exists", and before the server has started they would not exist at
 * all. So the palette commands have their own ids (`offload-ls.vscode.*`), registered at
 * activation; they send `workspace/executeCommand` with the server's name and one argument
 * object `{uri}`. Commands the lenses run go through languageclient's registration and
 * the `executeCommand` middleware (extension.ts), which shows run reports the same way.
 */

/** The server's command names (server/offload_ls/lsp/commands.py). */
export const SERVER_COMMANDS = {
  build: "offload-ls.build",
  run: "offload-ls.run",
  profile: "offload-ls.profile",
  showRunReport: "offload-ls.showRunReport",
  doctor: "offload-ls.doctor",
  cancel: "offload-ls.cancel",
} as const;

/** Palette command id -> the server command it forwards to. */
export const PALETTE_COMMANDS: Readonly<Record<string, string>> = {
  "offload-ls.vscode.build": SERVER_COMMANDS.build,
  "offload-ls.vscode.run": SERVER_COMMANDS.run,
  "offload-ls.vscode.profile": SERVER_COMMANDS.profile,
  "offload-ls.vscode.showRunReport": SERVER_COMMANDS.showRunReport,
  "offload-ls.vscode.doctor": SERVER_COMMANDS.doctor,
  "offload-ls.vscode.cancel": SERVER_COMMANDS.cancel,
};

/** The palette command that opens the kernel assembly view (the extension's own; the lens
 * runs `offload-ls.showAssembly`, assembly.ts). */
export const SHOW_ASSEMBLY_PALETTE = "offload-ls.vscode.showAssembly";

/** The palette command that restarts the server (the extension's own). */
export const RESTART_COMMAND = "offload-ls.restartServer";

/** A URI as the command needs it: its scheme and its string form. */
export interface UriLike {
  scheme: string;
  toString(): string;
}

/** Which URI a build/run/report command acts on: the active editor's document if it is a
 * file, else the first workspace folder; `undefined` if there is neither. */
export function targetUri(active: UriLike | undefined, folders: readonly UriLike[]): string | undefined {
  if (active !== undefined && active.scheme === "file") {
    return active.toString();
  }
  const folder = folders.find((f) => f.scheme === "file");
  return folder?.toString();
}

/** The `arguments` of `workspace/executeCommand` for a server command: `[{uri}]`, except
 * `offload-ls.doctor`, which takes none. `undefined` when a URI is needed and there is none. */
export function commandArguments(serverCommand: string, uri: string | undefined): unknown[] | undefined {
  if (serverCommand === SERVER_COMMANDS.doctor) {
    return [];
  }
  return uri === undefined ? undefined : [{ uri }];
}

/** The `arguments` languageclient should send when a server command runs (from a code
 * lens, or `executeCommand` by another extension): the given ones, or `[{uri}]` when the
 * caller gave none and the command takes a URI. */
export function fillArguments(serverCommand: string, args: readonly unknown[], uri: string | undefined): unknown[] {
  if (args.length > 0 || serverCommand === SERVER_COMMANDS.doctor) {
    return [...args];
  }
  return uri === undefined ? [] : [{ uri }];
}

/** What the "offload-ls run" channel shows for a command's result: the run report of
 * `offload-ls.run` / `.showRunReport` and the profile (then the run report) of
 * `offload-ls.profile` (their `report` field, the server's rendered text), or the `error` of
 * a refused command. `undefined`: nothing to show. */
export function resultText(serverCommand: string, result: unknown): string | undefined {
  if (serverCommand !== SERVER_COMMANDS.run && serverCommand !== SERVER_COMMANDS.showRunReport
      && serverCommand !== SERVER_COMMANDS.profile) {
    return undefined;
  }
  if (result === null || typeof result !== "object") {
    return undefined;
  }
  const r = result as { report?: unknown; error?: unknown };
  if (typeof r.report === "string") {
    return r.report;
  }
  if (typeof r.error === "string") {
    return r.error;
  }
  return undefined;
}

/** One line of the `offload-ls/runOutput` notification `{uri, stream, line}` as the run
 * channel shows it: stdout as is, stderr prefixed with `[stderr] `. */
export function runOutputLine(params: unknown): string | undefined {
  if (params === null || typeof params !== "object") {
    return undefined;
  }
  const p = params as { stream?: unknown; line?: unknown };
  if (typeof p.line !== "string") {
    return undefined;
  }
  return p.stream === "stderr" ? `[stderr] ${p.line}` : p.line;
}
