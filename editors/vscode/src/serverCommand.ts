/**
 * Which command starts the language server: pure logic over injected probes, no `vscode`
 * import (unit-tested in test/serverCommand.test.ts; the real probes are in probe.ts).
 *
 * Order: `offload-ls.server.path` if set (run as `<path> serve`), else
 * `offload-ls.server.python` if set (`<python> -m offload_ls serve`); else, with no setting:
 * each workspace folder's `.venv/bin/offload-ls` and `venv/bin/offload-ls` (a server the
 * user installed for this workspace), then the server bundled in the .vsix
 * (`<python> <extension>/launcher/offload_ls_launch.py serve`, with the Python extension's
 * interpreter, then `python3`, then `python`: any CPython >= 3.11), then the
 * interpreter the Python extension selected (`<python> -m offload_ls`), then `offload-ls`
 * on PATH, then `~/.local/bin/offload-ls` (pip --user and pipx install there; VS Code's
 * server often has a PATH without it), then `python3 -m offload_ls`, then `python -m
 * offload_ls`. A candidate counts when it is an executable file and `<candidate> --version`
 * (`<python> -m offload_ls --version`) exits 0 within the timeout: a leftover shim or an
 * interpreter without the package does not. A setting that is set but does not work is an
 * error; there is no fallback behind it.
 */

/** The install hint shown when no server is found: after it, the extension finds the
 * server by itself (the workspace's `.venv`). */
export const INSTALL_HINT =
  "in the workspace folder, run `python3 -m venv .venv && .venv/bin/pip install /path/to/offload-ls` " +
  "(an offload-ls checkout; it is not on PyPI), then reload the window";

/** The `server` settings of the extension (`offload-ls.server.path` / `.python`) and what
 * the no-setting search looks at. */
export interface ServerConfig {
  path?: string | null;
  python?: string | null;
  /** absolute paths of the workspace folders (their `.venv` / `venv` are searched) */
  workspaceFolders?: readonly string[];
  /** the interpreter the Python extension selected, if any */
  selectedPython?: string | null;
  /** the user's home directory (for `~/.local/bin`) */
  home?: string | null;
  /** the bundled server's launcher (`<extension>/launcher/offload_ls_launch.py`), when the
   * .vsix carries one */
  bundled?: string | null;
}

/** The outcome of running a program. `code` is `null` when it could not run or timed out. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The effects the resolution needs, injected so that tests can fake them. */
export interface Probes {
  /** The absolute path of an executable file: `cmd` is a path (absolute, relative or
   * `~/...`) or a name looked up on PATH. `undefined` if there is no such executable. */
  which(cmd: string): Promise<string | undefined>;
  /** Run `command` with `args` (an argv list, never a shell), killed after `timeoutMs`. */
  run(command: string, args: readonly string[], timeoutMs: number): Promise<RunResult>;
}

/** How to start the server. */
export interface ServerCommand {
  ok: true;
  /** absolute path of the program */
  command: string;
  args: string[];
  /** e.g. `offload-ls (PATH: /usr/bin/offload-ls)`: for the log */
  description: string;
}

/** Why no server could be started: `message` is for an error notification. */
export interface NoServer {
  ok: false;
  message: string;
  /** one line per candidate tried, with what was wrong */
  tried: string[];
}

export type Resolution = ServerCommand | NoServer;

/** Milliseconds each `--version` check may take. */
export const VERSION_TIMEOUT_MS = 20_000;

const DEFAULT_PYTHONS = ["python3", "python"];

function nonEmpty(value: string | null | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

function lastLine(text: string): string {
  const lines = text.trim().split(/\r?\n/);
  return lines[lines.length - 1] ?? "";
}

function failure(result: RunResult): string {
  const why = lastLine(result.stderr) || lastLine(result.stdout);
  const status = result.code === null ? "did not finish" : `exit status ${result.code}`;
  return why ? `${status}: ${why}` : status;
}

/** Check one candidate: its absolute path, and what is wrong with it (if anything). */
async function check(
  probes: Probes,
  program: string,
  versionArgs: string[],
): Promise<{ path?: string; problem?: string }> {
  const path = await probes.which(program);
  if (path === undefined) {
    return { problem: "not found (no executable file of that name on PATH or at that path)" };
  }
  const result = await probes.run(path, versionArgs, VERSION_TIMEOUT_MS);
  if (result.code !== 0) {
    return { path, problem: `\`${[path, ...versionArgs].join(" ")}\` failed (${failure(result)})` };
  }
  return { path };
}

function noServer(headline: string, tried: string[]): NoServer {
  return {
    ok: false,
    tried,
    message:
      `${headline} Install the server: ${INSTALL_HINT}, ` +
      `or set offload-ls.server.path (a command) or offload-ls.server.python (an interpreter). ` +
      `Tried: ${tried.join("; ")}.`,
  };
}

/** A program to try: an `offload-ls` script (`python: false`) or an interpreter to run
 * `-m offload_ls` with (or, with `launcher`, the bundled server's launcher script); `name`
 * labels it in the list of candidates tried, `describe` the chosen one in the log. */
interface Candidate {
  program: string;
  python: boolean;
  launcher?: string;
  name: string;
  describe: (path: string) => string;
}

const VERSION_ARGS = { script: ["--version"], python: ["-m", "offload_ls", "--version"] };

function baseArgs(python: boolean, launcher?: string): string[] {
  return launcher !== undefined ? [launcher] : python ? ["-m", "offload_ls"] : [];
}

function found(path: string, python: boolean, description: string, launcher?: string): ServerCommand {
  return { ok: true, command: path, args: [...baseArgs(python, launcher), "serve"], description };
}

/** The candidates of the search with no setting, in order (see the top of this file). */
function searchCandidates(config: ServerConfig): Candidate[] {
  const out: Candidate[] = [];
  for (const folder of config.workspaceFolders ?? []) {
    for (const venv of [".venv", "venv"]) {
      const program = `${folder.replace(/\/+$/, "")}/${venv}/bin/offload-ls`;
      out.push({ program, python: false, name: program, describe: (p) => `the workspace's ${venv}: ${p}` });
    }
  }
  const selected = nonEmpty(config.selectedPython);
  const launcher = nonEmpty(config.bundled);
  if (launcher !== undefined) {
    for (const interpreter of [...(selected !== undefined ? [selected] : []), ...DEFAULT_PYTHONS]) {
      out.push({
        program: interpreter,
        python: true,
        launcher,
        name: `${interpreter} ${launcher} (the server bundled in the extension)`,
        describe: (p) => `the server bundled in the extension, run by ${p}: ${launcher}`,
      });
    }
  }
  if (selected !== undefined) {
    out.push({
      program: selected,
      python: true,
      name: `${selected} -m offload_ls (the Python extension's interpreter)`,
      describe: (p) => `the Python extension's interpreter: ${p} -m offload_ls`,
    });
  }
  out.push({ program: "offload-ls", python: false, name: "offload-ls", describe: (p) => `offload-ls on PATH: ${p}` });
  const home = nonEmpty(config.home);
  if (home !== undefined) {
    const program = `${home.replace(/\/+$/, "")}/.local/bin/offload-ls`;
    out.push({ program, python: false, name: program, describe: (p) => `~/.local/bin: ${p}` });
  }
  for (const interpreter of DEFAULT_PYTHONS) {
    out.push({
      program: interpreter,
      python: true,
      name: `${interpreter} -m offload_ls`,
      describe: (p) => `${interpreter} on PATH: ${p} -m offload_ls`,
    });
  }
  return out;
}

/** Resolve the server command from the settings.
 *
 * @param config `offload-ls.server.path` / `offload-ls.server.python` (empty = unset) and
 *   what the search with no setting looks at.
 * @param probes `which` and `run` (see probe.ts for the real ones).
 * @returns the command and arguments, or why none works (with the install hint).
 */
export async function resolveServerCommand(config: ServerConfig, probes: Probes): Promise<Resolution> {
  const path = nonEmpty(config.path);
  if (path !== undefined) {
    const r = await check(probes, path, VERSION_ARGS.script);
    if (r.problem !== undefined) {
      return noServer(`offload-ls.server.path is "${path}", which does not work.`, [`${path}: ${r.problem}`]);
    }
    return found(r.path!, false, `offload-ls.server.path: ${r.path}`);
  }
  const python = nonEmpty(config.python);
  if (python !== undefined) {
    const r = await check(probes, python, VERSION_ARGS.python);
    if (r.problem !== undefined) {
      return noServer(`offload-ls.server.python is "${python}", which cannot run offload_ls.`, [
        `${python} -m offload_ls: ${r.problem}`,
      ]);
    }
    return found(r.path!, true, `offload-ls.server.python: ${r.path} -m offload_ls`);
  }
  const tried: string[] = [];
  for (const c of searchCandidates(config)) {
    const r = await check(probes, c.program, [...baseArgs(c.python, c.launcher), "--version"]);
    if (r.problem === undefined) {
      return found(r.path!, c.python, c.describe(r.path!), c.launcher);
    }
    tried.push(`${c.name}: ${r.problem}`);
  }
  return noServer("The offload-ls language server was not found.", tried);
}
