"""What the lowering (toolchain/lower.py) cannot handle in the user's source, each a
:class:`LoweringIssue`: a launch whose kernel cannot be resolved or whose arguments rustc
1.96's intrinsic cannot honour, a path dependency the copy cannot reach, a barrier in a kernel
the host image would run one thread at a time.

Every check reports through ``issue`` (a callable taking a :class:`LoweringIssue`).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

from tree_sitter import Node

from offload_ls.syntax.parse import node_text
from offload_ls.toolchain.lower_scan import ScannedFile, ScannedKernel, ScannedLaunch

#: ``error``: the build stops; ``warning``: it goes on
Level = Literal["error", "warning"]


@dataclass(frozen=True)
class LoweringIssue:
    """A problem in the user's source that the lowering cannot handle.

    Attributes:
        file: the user's file. start / end: UTF-8 byte range in it. level: ``error`` (the
        build stops) or ``warning``. message: what is wrong and what to do.
    """

    file: Path
    start: int
    end: int
    level: Level
    message: str


#: where a check reports what it found
IssueSink = Callable[[LoweringIssue], None]


def check_path_dependencies(package_root: Path, mirror: Path, issue: IssueSink) -> None:
    """An error on Cargo.toml for each path dependency outside the mirrored tree (the copy
    cannot reach it)."""
    manifest = package_root / "Cargo.toml"
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    tables = [data.get(k, {}) for k in ("dependencies", "dev-dependencies", "build-dependencies")]
    tables += [t.get(k, {}) for t in data.get("target", {}).values() if isinstance(t, dict)
               for k in ("dependencies", "dev-dependencies", "build-dependencies")]
    for table in tables:
        for name, spec in (table.items() if isinstance(table, dict) else ()):
            if isinstance(spec, dict) and isinstance(spec.get("path"), str):
                dep = (package_root / spec["path"]).resolve()
                if not dep.is_relative_to(mirror.resolve()):
                    text = manifest.read_bytes()
                    at = max(text.find(name.encode()), 0)
                    issue(LoweringIssue(manifest, at, at + len(name.encode()), "error",
                                        f"path dependency `{name}` ({spec['path']}) lies outside "
                                        f"{mirror}: the lowered copy under target/offload-ls cannot reach it; "
                                        "make it a member of the same workspace"))


def _resolve(launch: ScannedLaunch, kernels: list[ScannedKernel]) -> list[ScannedKernel]:
    """The upstream kernels ``launch`` can mean: by name, then by the launch path's module
    segments (``kernels::saxpy``) or, for a bare name, the launch's own module."""
    cands = [k for k in kernels if k.name == launch.kernel_name]
    if len(cands) <= 1:
        return cands
    segs = tuple(s for s in launch.kernel_segments[:-1] if s not in ("crate", "self", "super"))
    if segs:
        return [k for k in cands if k.module[-len(segs):] == segs]
    return [k for k in cands if k.module == launch.module]


def check_launch(f: ScannedFile, launch: ScannedLaunch, kernels: list[ScannedKernel], legacy: set[str],
                 issue: IssueSink) -> ScannedKernel | None:
    """The upstream kernel ``launch`` launches (``None``: a 1.96-style kernel, or an error
    was reported)."""
    node = launch.node
    if "kernel" not in launch.values or "args" not in launch.values:
        missing = "kernel" if "kernel" not in launch.values else "args"
        issue(LoweringIssue(f.path, node.start_byte, node.end_byte, "error",
                            f"`offload!` without `{missing}` (both `kernel` and `args` are required)"))
        return None
    name = launch.kernel_name
    ks, ke = launch.values["kernel"]
    args = launch.values["args"]
    if not launch.args_tuple:
        issue(LoweringIssue(f.path, args[0], args[1], "error",
                            "`args` must be a tuple `(a, b, ..)`; one argument is `(a,)`, with the comma"))
    _check_dyn_cache_and_device(f, launch, issue)
    if name is None:
        issue(LoweringIssue(f.path, ks, ke, "error", "`kernel = ..` must name a kernel function (a path)"))
        return None
    found = _resolve(launch, kernels)
    if not found:
        if name not in legacy:
            issue(LoweringIssue(f.path, ks, ke, "error",
                                f"`{name}` is not an offload kernel of this crate: mark the function "
                                "`#[offload_kernel]` (a `use .. as` alias is not followed: name the kernel; "
                                "kernels of dependencies are not lowered: move the kernel into this crate)"))
        return None
    if len(found) > 1:
        where = ", ".join("::".join(("crate", *k.module, k.name)) for k in found)
        issue(LoweringIssue(f.path, ks, ke, "error", f"`{name}` could be {where}: write its module path"))
        return None
    k = found[0]
    if k.generics and not launch.type_args:
        issue(LoweringIssue(f.path, ks, ke, "error",
                            f"`{name}` is generic: name the instantiation, e.g. `kernel = {name}::<f32>`"))
        return None
    if len(launch.type_args) != len(k.generics):
        issue(LoweringIssue(f.path, ks, ke, "error",
                            f"`{name}` takes {len(k.generics)} generic argument(s), the launch gives "
                            f"{len(launch.type_args)}"))
        return None
    return k if launch.args_tuple else None


def int_value(text: str) -> int | None:
    """``-1`` / ``0u32`` / ``1_024usize`` -> the integer; ``None`` for anything else."""
    t = text.replace("_", "").replace(" ", "")
    t = re.sub(r"(u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize)$", "", t)
    try:
        return int(t, 0)
    except ValueError:
        return None


def _check_dyn_cache_and_device(f: ScannedFile, launch: ScannedLaunch, issue: IssueSink) -> None:
    """``dyn_cache`` other than 0 and any ``device`` cannot be honoured by rustc 1.96's intrinsic."""
    if "dyn_cache" in launch.values:
        s, e = launch.values["dyn_cache"]
        text = f.source[s:e].decode("utf-8", "replace")
        if int_value(text) != 0:
            issue(LoweringIssue(f.path, s, e, "error",
                                f"`dyn_cache = {text}` is not supported by the LLVM-tools pipeline: dynamic "
                                "shared memory has no equivalent in rustc 1.96's four-argument "
                                "`core::intrinsics::offload` (a nightly with the offload component honours it)"))
    if "device" in launch.values:
        s, e = launch.values["device"]
        text = f.source[s:e].decode("utf-8", "replace")
        value = int_value(text)
        if value is not None and value < 0:
            # tests/ui/offload/offload_negative_device.rs
            message = "offload device must be non-negative; omit `device` to use the default device"
        else:
            message = (f"`device = {text}` is not supported by the LLVM-tools pipeline: rustc 1.96's "
                       "four-argument `core::intrinsics::offload` launches on the default device; omit "
                       "`device` and set OMP_DEFAULT_DEVICE=<n> when running")
        issue(LoweringIssue(f.path, s, e, "error", message))


def check_barriers(files: list[ScannedFile], kernels: list[ScannedKernel], issue: IssueSink) -> None:
    """An error on each barrier a kernel reaches (by name, through the crate's functions)."""
    calls: dict[str, set[str]] = {}
    barriers: dict[str, list[tuple[ScannedFile, Node]]] = {}
    for f in files:
        for name, called in f.calls.items():
            calls.setdefault(name, set()).update(called)
        for name, nodes in f.barrier_calls.items():
            barriers.setdefault(name, []).extend((f, n) for n in nodes)
    for kname in dict.fromkeys(k.name for k in kernels):
        seen, todo = set(), [kname]
        while todo:
            fn = todo.pop()
            if fn in seen:
                continue
            seen.add(fn)
            todo.extend(calls.get(fn, ()))
            for f, n in barriers.get(fn, ()):
                callee = node_text(n.child_by_field_name("function")).split("::")[-1]
                issue(LoweringIssue(f.path, n.start_byte, n.end_byte, "error",
                                    f"kernel `{kname}` waits at a barrier (`{callee}`): the host image runs "
                                    "the grid one thread at a time, so a barrier cannot be emulated; "
                                    "build for the GPU (`--device-image gpu`)"))

