"""Device assembly listings (PTX, LLVM IR, SASS, AMDGPU asm) with their source-line maps: what
the assembly view shows beside a kernel.

A :class:`Listing` is the text of one compiled module, one entry per line (0-based) telling
which source locations the line came from (innermost first: the location itself, then the
call sites it was inlined into), and the line range of each function. Source lines are
1-based, as compilers print them; the LSP layer converts.

Where the locations come from:

- PTX and AMDGPU asm: ``.file N "path"`` (or DWARF 5's ``.file N "dir" "name" md5 ...``) and
  ``.loc N LINE COL`` directives, written by LLVM's AsmPrinter when the module has debug
  info (``-Cdebuginfo=line-tables-only`` on the device pass). An instruction belongs to the
  last ``.loc`` before it. The call sites a location was inlined into are read from the
  comment llc's verbose assembly puts after the directive
  (``// src/main.rs:59:16 @[ src/main.rs:98:13 @[ src/main.rs:95:1 ] ]``), so a line that
  came from a library function (``core::arch::nvptx``) still maps to the kernel line that
  called it.
- LLVM IR: ``!dbg !N`` attachments, ``!DILocation(line:, column:, scope:, inlinedAt:)``,
  scopes (``DISubprogram`` / ``DILexicalBlock(File)``) and ``DIFile(filename:, directory:)``.
- SASS: ``nvdisasm --print-line-info`` comments ``//## File "path", line N`` (with
  ``inlined at "path", line M`` when the cubin has inlining info; CUDA binary utilities
  documentation, nvdisasm options). From ``ptxas -lineinfo`` on llc's PTX there is none
  (measured, CUDA 13): SASS of an inlined library function maps to the library's file only.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

FORMATS = ("ptx", "llvm-ir", "sass", "amdgcn")


@dataclass(frozen=True)
class SourceLoc:
    """A source location: absolute (or compiler-relative) path, 1-based line, column (0 = none)."""

    path: str
    line: int
    column: int = 0


@dataclass
class Listing:
    """One compiled module's text and its source map.

    Attributes:
        format: one of :data:`FORMATS`.
        lines: the text, one string per line (0-based index = listing line).
        locs: per listing line, the locations it came from, innermost first (empty for
            directives, labels and comments).
        functions: function / kernel name -> (first line, last line), 0-based inclusive.
    """

    format: str
    lines: list[str]
    locs: list[tuple[SourceLoc, ...]]
    functions: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def source_line(self, index: int, path: str) -> int | None:
        """The 1-based line of ``path`` that listing line ``index`` came from: the innermost
        of its locations in that file (``None`` when none is)."""
        if not 0 <= index < len(self.locs):
            return None
        want = _norm(path)
        return next((loc.line for loc in self.locs[index] if loc.line > 0 and _norm(loc.path) == want), None)

    def line_map(self, path: str) -> list[tuple[int, int]]:
        """``[(listing line 0-based, source line 1-based), ...]`` for every listing line that
        came from ``path``, in listing order."""
        want = _norm(path)
        out = []
        for i, chain in enumerate(self.locs):
            line = next((loc.line for loc in chain if loc.line > 0 and _norm(loc.path) == want), None)
            if line is not None:
                out.append((i, line))
        return out

    def listing_lines(self, path: str, line: int) -> list[int]:
        """Listing lines (0-based) that came from 1-based ``line`` of ``path``."""
        return [i for i, src in self.line_map(path) if src == line]


def _norm(path: str) -> str:
    return os.path.normpath(path)


_OCTAL = re.compile(rb"\\([0-7]{3})")
_HEX = re.compile(rb"\\([0-9A-Fa-f]{2})")


def _unescape(text: str, pattern: re.Pattern) -> str:
    """A path as llc / llvm-dis quote it: non-ASCII bytes as ``\\303\\274`` (octal, in
    assembly) or ``\\C3\\BC`` (hex, in IR), decoded back to UTF-8 text."""
    if "\\" not in text:
        return text
    raw = text.encode("utf-8", "surrogateescape")
    base = 8 if pattern is _OCTAL else 16
    return pattern.sub(lambda m: bytes([int(m.group(1), base)]), raw).decode("utf-8", "replace")


# ------------------------------------------------------------------ PTX / AMDGPU asm

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s*,|\s+"([^"]*)")?')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")
_COMMENT_LOC = re.compile(r"([^\s@\[\]]+):(\d+):(\d+)")
_PTX_FUNC = re.compile(r"^(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$.]+)\s*\(?")
_ASM_FUNC = re.compile(r"^([\w$.]+):\s*(?:;.*|//.*|@.*)?$")


def parse_asm(text: str, fmt: str = "ptx", base_dir: str | None = None) -> Listing:
    """Read PTX (``fmt="ptx"``) or AMDGPU assembly (``"amdgcn"``) written by llc.

    ``base_dir``: directory that relative paths in the inlined-at comments are relative to
    (the crate's directory; llc prints paths as the compiler saw them).
    """
    lines = text.splitlines()
    files: dict[str, str] = {}
    for raw in lines:  # llc writes PTX's .file table at the end of the module
        m = _FILE.match(raw)
        if m:
            directory, name = (m.group(2), m.group(3)) if m.group(3) is not None else ("", m.group(2))
            directory, name = _unescape(directory, _OCTAL), _unescape(name, _OCTAL)
            files[m.group(1)] = os.path.join(directory, name) if directory and not os.path.isabs(name) else name
    locs: list[tuple[SourceLoc, ...]] = []
    functions: dict[str, tuple[int, int]] = {}
    current: tuple[SourceLoc, ...] = ()
    func_start: tuple[str, int] | None = None
    for i, raw in enumerate(lines):
        s = raw.strip()
        if _FILE.match(raw):
            locs.append(())
            continue
        m = _LOC.match(raw)
        if m:
            path = files.get(m.group(1), "")
            here = SourceLoc(path, int(m.group(2)), int(m.group(3)))
            current = (here, *_inlined_at(raw, base_dir))
            locs.append(())
            continue
        if fmt == "ptx":
            fm = _PTX_FUNC.match(s)
            if fm and not s.endswith(";"):
                func_start = (fm.group(2), i)
                current = ()
            elif s == "}" and raw.startswith("}") and func_start is not None:
                functions[func_start[0]] = (func_start[1], i)
                func_start = None
                current = ()
        else:
            fm = _ASM_FUNC.match(raw)
            if fm and not raw.startswith((".", "\t", " ")) and not fm.group(1).startswith((".L", "$")):
                if func_start is not None:
                    functions[func_start[0]] = (func_start[1], i - 1)
                func_start = (fm.group(1), i)
                current = ()
            elif s.startswith(".Lfunc_end") and func_start is not None:
                functions[func_start[0]] = (func_start[1], i)
                func_start = None
        locs.append(current if _is_instruction(s) else ())
    if func_start is not None:
        functions[func_start[0]] = (func_start[1], len(lines) - 1)
    return Listing(fmt, lines, locs, functions)


def _inlined_at(raw: str, base_dir: str | None) -> tuple[SourceLoc, ...]:
    """Call sites from llc's verbose comment ``// a.rs:1:2 @[ b.rs:3:4 @[ ... ] ]``."""
    cut = raw.find("//")
    if cut < 0 or "@[" not in raw:
        return ()
    found = _COMMENT_LOC.findall(raw[cut:].split("@[", 1)[1])
    out = []
    for path, line, col in found:
        if base_dir and not os.path.isabs(path):
            path = os.path.join(base_dir, path)
        out.append(SourceLoc(path, int(line), int(col)))
    return tuple(out)


def _is_instruction(s: str) -> bool:
    return bool(s) and not s.startswith((".", "//", ";", "{", "}", "$L", ".L", "#", "@@")) and not s.endswith(":")


def ptx_for_ptxas(ptx: str) -> str:
    """PTX with line tables but without DWARF, for an optimised ``ptxas -lineinfo`` build.

    llc writes ``.target sm_90, debug`` and ``.section .debug_*`` when the module has debug
    info, even line tables only; ptxas then compiles as with ``-g`` (no optimisation: the SASS
    is full of ``MOV R6, R6``, measured with CUDA 13 on sm_90). Dropping the ``debug`` target
    option and the DWARF sections keeps the ``.loc`` lines, which ``-lineinfo`` turns into the
    line table nvdisasm reads (PTX ISA, "Debugging Directives" and ``.target``).
    """
    out = []
    for line in ptx.splitlines():
        if line.lstrip().startswith(".section") and ".debug_" in line:
            break  # llc writes the DWARF sections last
        if line.startswith(".target") and ", debug" in line:
            line = line.replace(", debug", "")
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m offload_ls.gpu.listing ptx-for-ptxas IN.ptx OUT.ptx`` (a pipeline pass)."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "ptx-for-ptxas":
        print("usage: python -m offload_ls.gpu.listing ptx-for-ptxas IN.ptx OUT.ptx", file=sys.stderr)
        return 2
    try:
        with open(args[1], encoding="utf-8") as f:
            text = f.read()
        with open(args[2], "w", encoding="utf-8") as f:
            f.write(ptx_for_ptxas(text))
    except OSError as exc:
        print(f"ptx-for-ptxas: {exc}", file=sys.stderr)
        return 2
    return 0


# ------------------------------------------------------------------ LLVM IR

_DBG = re.compile(r"!dbg !(\d+)")
_MD = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
_FIELD = re.compile(r'(\w+): (!\d+|"(?:[^"\\]|\\.)*"|[\w.-]+)')
_DEFINE = re.compile(r'^define\b[^@]*@("[^"]+"|[\w.$]+)\(')


def parse_llvm_ir(text: str) -> Listing:
    """Read textual LLVM IR (``llvm-dis`` output) with its ``!dbg`` locations."""
    lines = text.splitlines()
    md: dict[str, tuple[str, dict[str, str]]] = {}
    for raw in lines:
        m = _MD.match(raw)
        if m:
            md[m.group(1)] = (m.group(2), {k: v for k, v in _FIELD.findall(m.group(3))})

    def file_of(scope: str, depth: int = 0) -> str:
        kind, f = md.get(scope.lstrip("!"), ("", {}))
        if kind == "DIFile":
            name = _unescape(f.get("filename", '""')[1:-1], _HEX)
            directory = _unescape(f.get("directory", '""')[1:-1], _HEX)
            return name if os.path.isabs(name) or not directory else os.path.join(directory, name)
        if "file" in f:
            return file_of(f["file"], depth + 1)
        if "scope" in f and depth < 64:
            return file_of(f["scope"], depth + 1)
        return ""

    cache: dict[str, tuple[SourceLoc, ...]] = {}

    def chain(loc_id: str, depth: int = 0) -> tuple[SourceLoc, ...]:
        if loc_id in cache:
            return cache[loc_id]
        kind, f = md.get(loc_id, ("", {}))
        if kind != "DILocation" or depth > 64:
            return ()
        here = SourceLoc(file_of(f.get("scope", "")), int(f.get("line", "0")), int(f.get("column", "0")))
        rest = chain(f["inlinedAt"].lstrip("!"), depth + 1) if "inlinedAt" in f else ()
        cache[loc_id] = (here, *rest)
        return cache[loc_id]

    locs: list[tuple[SourceLoc, ...]] = []
    functions: dict[str, tuple[int, int]] = {}
    start: tuple[str, int] | None = None
    for i, raw in enumerate(lines):
        m = _DEFINE.match(raw)
        if m:
            start = (m.group(1).strip('"'), i)
            locs.append(())
            continue
        if raw.startswith("}") and start is not None:
            functions[start[0]] = (start[1], i)
            start = None
        d = _DBG.search(raw) if start is not None and raw.startswith("  ") else None
        locs.append(chain(d.group(1)) if d else ())
    return Listing("llvm-ir", lines, locs, functions)


# ------------------------------------------------------------------ SASS

_SASS_FILE = re.compile(r'//## File "([^"]+)", line (\d+)(.*)')
_SASS_INLINED = re.compile(r'inlined at "([^"]+)", line (\d+)')
_SASS_FUNC = re.compile(r"^\.text\.([\w$.]+):\s*$")


def parse_sass(text: str) -> Listing:
    """Read ``nvdisasm --print-line-info`` output: each ``//## File "p", line N`` comment
    (with its ``inlined at`` call sites) applies to the instructions after it."""
    lines = text.splitlines()
    locs: list[tuple[SourceLoc, ...]] = []
    functions: dict[str, tuple[int, int]] = {}
    current: tuple[SourceLoc, ...] = ()
    start: tuple[str, int] | None = None
    for i, raw in enumerate(lines):
        m = _SASS_FILE.search(raw)
        if m:
            current = (SourceLoc(m.group(1), int(m.group(2))),
                       *(SourceLoc(p, int(n)) for p, n in _SASS_INLINED.findall(m.group(3))))
            locs.append(())
            continue
        fm = _SASS_FUNC.match(raw)
        if fm:
            if start is not None:
                functions[start[0]] = (start[1], i - 1)
            start = (fm.group(1), i)
            current = ()
        s = raw.strip()
        is_insn = s.startswith("/*") and "*/" in s and s[s.index("*/") + 2:].strip() not in ("", "}")
        locs.append(current if is_insn else ())
    if start is not None:
        functions[start[0]] = (start[1], len(lines) - 1)
    return Listing("sass", lines, locs, functions)


if __name__ == "__main__":
    raise SystemExit(main())
