/**
 * The real probes for serverCommand.ts: a PATH lookup and running a program with a
 * timeout (argv list, no shell). Node only, no `vscode` import (the smoke test uses them).
 */
import { execFile } from "node:child_process";
import { constants, promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import type { Probes, RunResult } from "./serverCommand";

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) {
      return false;
    }
    await fs.access(file, process.platform === "win32" ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `which`: `cmd` with a path separator (or starting with `~`) is a path, resolved against
 * the current directory; otherwise each PATH entry is tried (with PATHEXT on Windows).
 * Returns the absolute path of an executable regular file, or `undefined`. */
export async function which(cmd: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  let name = cmd;
  if (name === "~" || name.startsWith("~/")) {
    name = path.join(os.homedir(), name.slice(1));
  }
  const exts =
    process.platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT;.COM").split(";")] : [""];
  if (name.includes("/") || name.includes(path.sep)) {
    for (const ext of exts) {
      const full = path.resolve(name + ext);
      if (await isExecutableFile(full)) {
        return full;
      }
    }
    return undefined;
  }
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const full = path.resolve(dir, name + ext);
      if (await isExecutableFile(full)) {
        return full;
      }
    }
  }
  return undefined;
}

/** Run `command args` (no shell), killed after `timeoutMs`; never rejects. */
export function run(command: string, args: readonly string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { timeout: timeoutMs, windowsHide: true, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        let code: number | null = 0;
        if (error) {
          const c = (error as NodeJS.ErrnoException & { code?: unknown }).code;
          code = typeof c === "number" && !(error as { killed?: boolean }).killed ? c : null;
        }
        resolve({ code, stdout: String(stdout), stderr: String(stderr) || (error && code === null ? error.message : "") });
      },
    );
  });
}

/** The real probes. */
export const nodeProbes: Probes = { which: (cmd) => which(cmd), run };
