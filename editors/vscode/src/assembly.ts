/**
 * The kernel assembly view's pure logic (no `vscode` import; unit-tested in
 * test/assembly.test.ts): the server's `offload-ls.assembly` result, the virtual document's
 * URI, and the line map in both directions.
 *
 * The server (server/offload_ls/lsp/assembly.py) returns the whole module's listing (PTX,
 * AMDGPU assembly, LLVM IR or SASS), the kernel's line range and `map`: pairs
 * `[listing line, source line]`, both 0-based, for the lines that came from the source
 * document (the `.loc` line tables of a device pass built with line tables).
 */

/** The client-side command the "Show PTX" lens runs (the server lists it only for clients
 * that declare it in `experimental.commands.commands`). */
export const SHOW_ASSEMBLY = "offload-ls.showAssembly";
/** The server command that compiles and returns a listing. */
export const ASSEMBLY = "offload-ls.assembly";
/** URI scheme of the read-only listing documents. */
export const SCHEME = "offload-ls-asm";

export interface AssemblyResult {
  ok: boolean;
  error?: string;
  format: string;
  formats: string[];
  arch: string;
  kernel: string | null;
  entry: [number, number] | null;
  text: string;
  file: string;
  map: [number, number][];
}

/** `true` when `value` has the shape of a successful `offload-ls.assembly` result. */
export function isAssemblyResult(value: unknown): value is AssemblyResult {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const v = value as Record<string, unknown>;
  return v.ok === true && typeof v.text === "string" && typeof v.format === "string" && Array.isArray(v.map);
}

/** Extension of the virtual document (VS Code picks a language mode from it, if any). */
export function extensionFor(format: string): string {
  return { ptx: "ptx", amdgcn: "s", "llvm-ir": "ll", sass: "sass" }[format] ?? "txt";
}

/** Path part of the listing's virtual URI: `/<crate file name>.<kernel>.<ext>`, e.g.
 * `/main.rs.saxpy.ptx`; one document per source file, kernel and format. */
export function listingPath(sourcePath: string, kernel: string | null, format: string): string {
  const base = sourcePath.split("/").pop() ?? "source";
  return `/${base}.${kernel ?? "module"}.${extensionFor(format)}`;
}

/** The line map of one listing, both ways. */
export class LineMap {
  private readonly toListing = new Map<number, number[]>();
  private readonly toSource = new Map<number, number>();

  constructor(pairs: readonly (readonly [number, number])[]) {
    for (const [listing, source] of pairs) {
      this.toSource.set(listing, source);
      const lines = this.toListing.get(source);
      if (lines === undefined) {
        this.toListing.set(source, [listing]);
      } else {
        lines.push(listing);
      }
    }
    for (const lines of this.toListing.values()) {
      lines.sort((a, b) => a - b);
    }
  }

  /** Listing lines (0-based, ascending) that came from source line `line` (0-based). */
  listingLines(line: number): number[] {
    return this.toListing.get(line) ?? [];
  }

  /** The source line (0-based) listing line `line` came from, if any. */
  sourceLine(line: number): number | undefined {
    return this.toSource.get(line);
  }

  /** Source lines that have listing lines, ascending. */
  sourceLines(): number[] {
    return [...this.toListing.keys()].sort((a, b) => a - b);
  }
}

/** Runs of consecutive lines `[first, last]`, for whole-line decorations. */
export function runs(lines: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const line of [...lines].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last !== undefined && line === last[1] + 1) {
      last[1] = line;
    } else if (last === undefined || line !== last[1]) {
      out.push([line, line]);
    }
  }
  return out;
}

/** Status bar text for a listing line: where it came from in the source. */
export function statusText(sourceName: string, sourceLine: number | undefined): string {
  return sourceLine === undefined ? "$(file-binary) no source line" : `$(file-binary) ${sourceName}:${sourceLine + 1}`;
}

/** Status bar text for a source line: the listing lines it became (1-based, in runs), e.g.
 * `$(file-binary) ptx 449-451, 453`; `undefined` when the line has none. */
export function forwardStatus(format: string, lines: readonly number[]): string | undefined {
  if (lines.length === 0) {
    return undefined;
  }
  const parts = runs(lines).map(([a, b]) => (a === b ? `${a + 1}` : `${a + 1}-${b + 1}`));
  const shown = parts.length > 4 ? [...parts.slice(0, 4), "…"] : parts;
  return `$(file-binary) ${format} ${shown.join(", ")}`;
}
