/**
 * The status bar's text: pure logic, no `vscode` import (unit-tested in
 * test/status.test.ts).
 *
 * Between jobs the item shows the toolchain and GPU state from `offload-ls.doctor` (run once
 * after the server starts in a trusted workspace), e.g. `offload: llvm-tools · no GPU` or
 * `offload: native · sm_90`. While the server compiles, builds or runs, it shows the current
 * step. Those steps reach the client as server-initiated work-done progress
 * (`window/workDoneProgress/create` + `$/progress`, begin/report/end); languageclient shows
 * them as notifications itself and hands each one to the `handleWorkDoneProgress`
 * middleware first, which feeds a {@link ProgressTracker}. (Registering a second
 * `client.onProgress` handler for a token that languageclient already handles throws in
 * vscode-jsonrpc, so the middleware is the one place to see them.)
 */

/** The parts of the doctor's JSON (`DoctorReport.to_json()`) the status bar reads. */
export interface DoctorJson {
  pipeline?: string;
  target?: string;
  arch?: string;
  gpus?: { vendor?: string; name?: string; arch?: string | null }[];
  missing?: string[];
  install?: string | null;
  notes?: string[];
  chosen?: number | null;
  toolchains?: { rustc?: string; release?: string }[];
}

/** What the status bar item shows. `warning`: use the warning colours. */
export interface StatusView {
  text: string;
  tooltip: string;
  warning: boolean;
}

function gpuLabel(gpus: NonNullable<DoctorJson["gpus"]>): string {
  if (gpus.length === 0) {
    return "no GPU";
  }
  const first = gpus[0]!;
  const label = first.arch || first.name || "GPU";
  return gpus.length > 1 ? `${label} ×${gpus.length}` : label;
}

/** The status bar after a doctor report.
 *
 * @param report the result of `workspace/executeCommand` `offload-ls.doctor`.
 * @returns e.g. `{text: "offload: llvm-tools · no GPU", ...}`; `host-only` (no device
 *   pass possible) is a warning, and its tooltip says what is missing and the install command.
 */
export function doctorStatus(report: unknown): StatusView {
  if (report === null || typeof report !== "object" || typeof (report as DoctorJson).pipeline !== "string") {
    return { text: "offload: ?", tooltip: "offload-ls doctor returned no report", warning: true };
  }
  const r = report as DoctorJson;
  const gpus = r.gpus ?? [];
  const lines = [`Pipeline: ${r.pipeline}`];
  const tc = r.chosen !== undefined && r.chosen !== null ? r.toolchains?.[r.chosen] : undefined;
  if (tc?.rustc) {
    lines.push(`rustc: ${tc.rustc}${tc.release ? ` (${tc.release})` : ""}`);
  }
  if (r.target) {
    lines.push(`Device target: ${r.target}${r.arch ? ` ${r.arch}` : ""}`);
  }
  lines.push(
    gpus.length === 0 ? "GPUs: none found" : `GPUs: ${gpus.map((g) => `${g.name ?? "?"} (${g.arch ?? "?"})`).join(", ")}`,
  );
  for (const m of r.missing ?? []) {
    lines.push(`Missing: ${m}`);
  }
  if (r.install) {
    lines.push(`Install: ${r.install}`);
  }
  lines.push("Click for the full doctor report.");
  return {
    text: `offload: ${r.pipeline} · ${gpuLabel(gpus)}`,
    tooltip: lines.join("\n"),
    warning: r.pipeline === "host-only",
  };
}

/** The status bar in an untrusted workspace (no doctor: it would run toolchain programs). */
export const UNTRUSTED_STATUS: StatusView = {
  text: "offload: lints only",
  tooltip:
    "This workspace is not trusted: offload-ls lints, but does not compile, build or run its crates. " +
    "Trust the workspace to enable them.",
  warning: false,
};

/** The status bar while the server is starting. */
export const STARTING_STATUS: StatusView = { text: "offload: starting", tooltip: "offload-ls is starting", warning: false };

/** The status bar when no server could be started. */
export function failedStatus(message: string): StatusView {
  return { text: "offload: no server", tooltip: message, warning: true };
}

/** The `value` of a `$/progress` notification (LSP work-done progress). */
export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
  percentage?: number;
}

/** Tracks the server's running work-done progresses; the newest one is shown. */
export class ProgressTracker {
  private readonly active = new Map<string, { title: string; message?: string; percentage?: number }>();

  /** Feed one `$/progress` value of `token` (a string or number token). */
  update(token: string | number, value: ProgressValue): void {
    const key = String(token);
    if (value.kind === "begin") {
      this.active.delete(key);
      this.active.set(key, { title: value.title ?? "", message: value.message, percentage: value.percentage });
    } else if (value.kind === "report") {
      const entry = this.active.get(key);
      if (entry !== undefined) {
        if (value.message !== undefined) {
          entry.message = value.message;
        }
        if (value.percentage !== undefined) {
          entry.percentage = value.percentage;
        }
      }
    } else {
      this.active.delete(key);
    }
  }

  /** Forget every progress (the server that sent them stopped). */
  clear(): void {
    this.active.clear();
  }

  /** How many progresses are running. */
  get size(): number {
    return this.active.size;
  }

  /** The status text of the newest running progress, e.g.
   * `offload: Build — [2/4] host: host pass (50%)`; `undefined` when none runs. The
   * title's `offload-ls` / `offload-ls: ` prefix is dropped. */
  text(): string | undefined {
    let last: { title: string; message?: string; percentage?: number } | undefined;
    for (const entry of this.active.values()) {
      last = entry;
    }
    if (last === undefined) {
      return undefined;
    }
    const title = last.title.replace(/^offload-ls(:\s*)?/, "");
    const parts = [title, last.message].filter((p): p is string => !!p);
    const pct = last.percentage !== undefined && last.percentage > 0 ? ` (${last.percentage}%)` : "";
    return `offload: ${parts.join(" — ") || "working"}${pct}`;
  }
}

/** The log level of one line of the server's stderr in the `offload-ls` log channel: the
 * server's Python logging writes `offload-ls LEVEL logger: message` (lsp/server.py
 * `serve_stdio`); a traceback is an error; anything else is a warning. */
export function stderrLevel(line: string): "error" | "warn" | "info" {
  const m = /^offload-ls (DEBUG|INFO|WARNING|ERROR|CRITICAL) /.exec(line);
  if (m) {
    return m[1] === "ERROR" || m[1] === "CRITICAL" ? "error" : m[1] === "WARNING" ? "warn" : "info";
  }
  if (line.startsWith("Traceback ") || /^\w*(Error|Exception)\b/.test(line)) {
    return "error";
  }
  return "warn";
}
