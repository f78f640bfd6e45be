"""Kernel ABI fix-up of device IR: what rustc's ``-Zoffload=Device`` does, for compilers
built without it (docs/offload-notes.md, "Pipeline without native support", step 2).

libomptarget calls every kernel with a first ``ptr %dyn_ptr`` argument and passes scalar
arguments as 64-bit values; rustc's device pass (rustc_codegen_llvm/src/back/write.rs,
``handle_offload``) rewrites each function carrying the LLVM attribute ``"offload-kernel"``
accordingly. Without it the kernel reads its arguments shifted by one and crashes.

This module does the same on textual IR (``llvm-dis`` output): each kernel ``@k`` becomes
an internal ``@k.offload_inner``, and a new ``@k(ptr %dyn_ptr, ...)`` with the original
calling convention truncates the widened scalars and calls it. LLVM IR is not Rust, so
reading its ``define`` lines with patterns is fine here.

Run as a pipeline pass: ``python -m offload_ls.toolchain.kernel_abi IN.ll OUT.ll``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

_ATTR_GROUP = re.compile(r"^attributes (#\d+) = \{(.*)\}\s*$")
_DEFINE = re.compile(r"^define (?P<pre>[^@]*?)@(?P<name>[\w.$]+|\"[^\"]+\")\((?P<params>.*)\)(?P<post>[^(]*?)\{\s*$")
_INT = re.compile(r"^i(\d+)$")
_FLOATS = {"half": 16, "bfloat": 16, "float": 32, "double": 64}


@dataclass
class KernelParam:
    """One parameter of a ``define`` line: its type and the rest (attributes, name)."""

    type: str
    rest: str


def split_params(text: str) -> list[KernelParam]:
    """Split an IR parameter list at top-level commas; ``""`` -> ``[]``."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    out = []
    for p in parts:
        end = _type_end(p)
        out.append(KernelParam(p[:end].strip(), p[end:].strip()))
    return out


def _type_end(param: str) -> int:
    """Index just past the parameter's type: a bracketed aggregate (``{ i32, i64 }``,
    ``[4 x float]``, ``<2 x i32>``) or the first word."""
    if param[:1] in "{[<":
        depth = 0
        for i, ch in enumerate(param):
            depth += ch in "{[<"
            depth -= ch in "}]>"
            if depth == 0:
                return i + 1
        return len(param)
    space = param.find(" ")
    return len(param) if space == -1 else space


def _scalar_bits(ty: str) -> int | None:
    m = _INT.match(ty)
    if m:
        return int(m.group(1))
    return _FLOATS.get(ty)


def fix_kernel_abi(ir: str) -> tuple[str, list[str]]:
    """Rewrite every ``"offload-kernel"`` function of ``ir`` (textual LLVM IR).

    Returns:
        (new IR, names of the rewritten kernels). Kernels that already start with a
        ``%dyn_ptr`` parameter are left alone (idempotent).
    """
    lines = ir.splitlines()
    kernel_groups = set()
    no_inline_groups = set()
    for line in lines:
        m = _ATTR_GROUP.match(line)
        if m and '"offload-kernel"' in m.group(2):
            kernel_groups.add(m.group(1))
        if m and re.search(r"\b(noinline|optnone)\b", m.group(2)):
            no_inline_groups.add(m.group(1))
    out: list[str] = []
    wrappers: list[str] = []
    rewritten: list[str] = []
    debug = _DebugInfo(lines)
    for line in lines:
        m = _DEFINE.match(line)
        groups = set(re.findall(r"#\d+", m.group("post"))) if m else set()
        if not m or not (groups & kernel_groups):
            out.append(_strip_kernel_attr(line))
            continue
        params = split_params(m.group("params"))
        if params and params[0].rest.endswith("%dyn_ptr"):
            out.append(line)
            continue
        name = m.group("name")
        inner = f"{name}.offload_inner" if not name.startswith('"') else name[:-1] + '.offload_inner"'
        pre = m.group("pre")
        inner_pre = re.sub(r"\b(dso_local|ptx_kernel|amdgpu_kernel|spir_kernel|dllexport)\b\s*", "", pre)
        inner_pre = re.sub(r"\b(external|weak|weak_odr|linkonce_odr|linkonce|common)\b\s*", "", inner_pre)
        # alwaysinline: the entry point should cost nothing (no call in the PTX), unless the
        # function is marked noinline/optnone (debug builds), which LLVM rejects together.
        post = m.group("post")
        if not (groups & no_inline_groups):
            post = re.sub(r"(#\d+)", r"alwaysinline \1", post, count=1) if "#" in post else post + " alwaysinline "
        out.append(f"define internal {inner_pre.strip()} @{inner}({m.group('params')}){post}{{".replace("  ", " "))
        rewritten.append(name.strip('"'))
        wrappers.append(_wrapper(pre, name, inner, params, m.group("post"), debug.for_wrapper(m.group("post"))))
    text = "\n".join(out)
    if wrappers:
        text += ("\n\n; kernel entry points with libomptarget's ABI (offload-ls kernel_abi)\n"
                 + "\n\n".join(wrappers) + "\n")
    if debug.added:
        text += "\n" + "\n".join(debug.added) + "\n"
    return text, rewritten


_METADATA = re.compile(r"^!(\d+) = (distinct )?!DISubprogram\((.*)\)\s*$")
_SP_LINE = re.compile(r"\bline: (\d+)")


class _DebugInfo:
    """Debug locations for the wrappers, when the device pass had line tables
    (``-Cdebuginfo``): a function whose subprogram has no ``!dbg`` gets no ``.loc`` lines in
    the PTX (LLVM's DwarfDebug skips it), and a call inside a function with a subprogram must
    carry a ``!dbg`` location (the IR verifier). Each wrapper gets a copy of its kernel's
    ``DISubprogram`` (a subprogram may belong to one function only) and a location on the
    kernel's line."""

    def __init__(self, lines: list[str]) -> None:
        self.subprograms = {m.group(1): m.group(3) for m in map(_METADATA.match, lines) if m}
        ids = [int(x) for x in re.findall(r"^!(\d+) =", "\n".join(lines), flags=re.M)]
        self.next_id = max(ids, default=-1) + 1
        self.added: list[str] = []

    def for_wrapper(self, post: str) -> tuple[str, str] | None:
        """``(subprogram id, location id)`` for the wrapper of a kernel whose ``define`` ends in
        ``post``, or ``None`` when the kernel has no subprogram."""
        m = re.search(r"!dbg !(\d+)", post)
        fields = self.subprograms.get(m.group(1)) if m else None
        if fields is None:
            return None
        sp, loc = self.next_id, self.next_id + 1
        self.next_id += 2
        line = _SP_LINE.search(fields)
        self.added += [f"!{sp} = distinct !DISubprogram({fields})",
                       f"!{loc} = !DILocation(line: {line.group(1) if line else 0}, column: 1, scope: !{sp})"]
        return f"!{sp}", f"!{loc}"


def _strip_kernel_attr(line: str) -> str:
    m = _ATTR_GROUP.match(line)
    if m and '"offload-kernel"' in m.group(2):
        return line.replace(' "offload-kernel"', "").replace('"offload-kernel" ', "")
    return line


#: Parameter attributes of a kernel's pointer that hold for the entry point too (it passes the
#: pointer on unchanged): ``noalias`` and ``readonly`` let the NVPTX back end load through the
#: non-coherent cache (``ld.global.nc``, what nvcc emits for ``const T* __restrict__``);
#: without them on the entry point every load is a plain ``ld.global``. ABI attributes
#: (``byval``, ``sret``, ``inreg``..) are not copied.
_POINTER_ATTRS = frozenset({"noalias", "noundef", "nonnull", "readonly", "writeonly", "readnone", "nocapture"})
_POINTER_ATTR_CALLS = re.compile(r"^(dereferenceable|dereferenceable_or_null|captures|nofree)\(")


def pointer_attrs(p: KernelParam) -> str:
    """The attributes of pointer parameter ``p`` that the entry point keeps, each followed by
    a space (``"noalias noundef readonly align 8 dereferenceable(4096) "``), ``""`` for none."""
    words = p.rest.split()
    kept: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in _POINTER_ATTRS or _POINTER_ATTR_CALLS.match(w):
            kept.append(w)
        elif w == "align" and i + 1 < len(words) and words[i + 1].isdigit():
            kept += [w, words[i + 1]]
            i += 1
        i += 1
    return "".join(f"{w} " for w in kept)


def _wrapper(pre: str, name: str, inner: str, params: list[KernelParam], post: str,
             debug: tuple[str, str] | None = None) -> str:
    ret = pre.split()[-1] if pre.split() else "void"
    sig = ["ptr %dyn_ptr"]
    body = []
    call_args = []
    for i, p in enumerate(params):
        bits = _scalar_bits(p.type)
        if bits is None:
            kept = pointer_attrs(p) if p.type.startswith("ptr") else ""
            sig.append(f"{p.type} {kept}%arg{i}")
            call_args.append(f"{p.type} %arg{i}")
            continue
        sig.append(f"i64 %arg{i}")
        if bits < 64:
            body.append(f"  %t{i} = trunc i64 %arg{i} to i{bits}")
            val = f"%t{i}"
        else:
            val = f"%arg{i}"
        if p.type in _FLOATS:
            body.append(f"  %f{i} = bitcast i{bits} {val} to {p.type}")
            val = f"%f{i}"
        call_args.append(f"{p.type} {val}")
    # Keep linkage/visibility/CC words of the original, drop its return-attributes noise.
    head = " ".join(w for w in pre.split() if w != ret)
    attrs = " ".join(re.findall(r"#\d+", post))
    call = f"call {ret} @{inner}({', '.join(call_args)})" + (f", !dbg {debug[1]}" if debug else "")
    if debug:
        attrs += f" !dbg {debug[0]}"
    if ret == "void":
        body += [f"  {call}", "  ret void"]
    else:
        body += [f"  %r = {call}", f"  ret {ret} %r"]
    return (f"define {head} {ret} @{name}({', '.join(sig)}) {attrs} {{\nentry:\n" + "\n".join(body) + "\n}")


def main(argv: list[str] | None = None) -> int:
    """``python -m offload_ls.toolchain.kernel_abi IN.ll OUT.ll``: exit 0 and print the
    rewritten kernel names; exit 2 on usage or I/O errors, 3 if no kernel was found."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m offload_ls.toolchain.kernel_abi IN.ll OUT.ll", file=sys.stderr)
        return 2
    try:
        text = Path(args[0]).read_text(encoding="utf-8")
    except OSError as exc:
        print(f"kernel_abi: {exc}", file=sys.stderr)
        return 2
    new, names = fix_kernel_abi(text)
    Path(args[1]).write_text(new, encoding="utf-8")
    if not names:
        print("kernel_abi: no function with the \"offload-kernel\" attribute "
              "(is #[rustc_offload_kernel] on the kernels of the device pass?)", file=sys.stderr)
        return 3
    print(" ".join(names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
