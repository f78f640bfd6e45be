"""The lowered copy on disk (toolchain/lower.py): each scanned file's rewritten text, and the
rest of the mirrored tree copied as it is. Files whose content is unchanged are not rewritten
(they keep their modification time, so cargo's freshness checks hold)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from offload_ls.syntax.parse import node_text
from offload_ls.toolchain.lower_checks import IssueSink, LoweringIssue
from offload_ls.toolchain.lower_emit import (
    BODY_PREFIX,
    GPU_IMAGE_CFG,
    GRID_MODULE,
    HOST_IMAGE_CFG,
    SourceMap,
    Writer,
    crate_features,
    entries,
    glob_use,
    grid_fns,
    lower_features,
    lower_launch,
)
from offload_ls.toolchain.lower_instances import Instances
from offload_ls.toolchain.lower_scan import ScannedFile

_SKIP_NAMES = frozenset({".git", ".hg", ".svn", "node_modules", "offload-build"})


def package_files(root: Path, skip: tuple[Path, ...] = ()) -> list[Path]:
    """Regular files under ``root``, sorted, without VCS folders, ``node_modules`` and cargo
    target directories (``skip``, and any folder holding cargo's ``CACHEDIR.TAG``): a source
    module folder that happens to be called ``target`` is kept. Links are not followed."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_NAMES and here / d not in skip
                             and not (here / d / "CACHEDIR.TAG").exists() and not (here / d).is_symlink())
        out += [here / n for n in sorted(filenames) if (here / n).is_file() and not (here / n).is_symlink()]
    return out


def write_file(f: ScannedFile, out: Path, found: Instances, roots: set[Path], emulate: bool,
               issue: IssueSink) -> SourceMap | None:
    """Render one file's lowered text into ``out``; its source map when the text differs
    from the user's (``None``: copied as it is)."""
    insts, launch_insts, aliases = found.kernel_insts, found.launch_insts, found.aliases
    w = Writer(f, out)
    _remove_offload_uses(f, w, issue)
    _mark_kernels(f, w)
    for launch in f.launches:
        lower_launch(f, w, launch, launch_insts.get(id(launch)), emulate)
    for k in f.kernels:  # each kernel's entries attributed to that kernel
        text = "".join(entries(inst, f, emulate) for inst in insts[id(k)])
        w.replace(k.container_end, k.container_end, [(text, k.fn.start_byte, k.fn.end_byte, False)])
    for (path, end), items in aliases.items():
        if path == f.path:
            for text, o0, o1 in items:
                w.replace(end, end, [(text, o0, o1, False)])
    tail: dict[int, str] = {}
    if emulate:
        for end in f.module_ends:
            tail[end] = tail.get(end, "") + glob_use()
    if f.path in roots:
        lower_features(f, w)
        have = crate_features(f)
        wanted = [("not(offload_device)", "core_intrinsics"), ("offload_device", "rustc_attrs"),
                  (GPU_IMAGE_CFG, "abi_gpu_kernel")]
        head = "".join(f"#![cfg_attr({c}, feature({feat}))] " for c, feat in wanted if feat not in have)
        w.text(0, 0, head + "#![allow(internal_features)] ")
        if emulate:
            tail[len(f.source)] = tail.get(len(f.source), "") + GRID_MODULE.format(cfg=HOST_IMAGE_CFG, fns=grid_fns())
    for end, text in tail.items():
        w.replace(end, end, [(text, end, end, False)])
    data, smap = w.render()
    _write_if_changed(out, data)
    if data == f.source:
        return None
    smap.generated = out
    return smap


def _remove_offload_uses(f: ScannedFile, w: Writer, issue: IssueSink) -> None:
    """Removes the file's ``use core::offload::..`` items (returns nothing); a name rustc 1.96
    does not have is an error issue."""
    for u in f.offload_uses:
        text = node_text(u.child_by_field_name("argument"))
        unknown = [n for n in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text.split("::", 2)[-1])
                   if n not in ("offload", "offload_kernel", "self")]
        if unknown:
            issue(LoweringIssue(f.path, u.start_byte, u.end_byte, "error",
                                f"`{text}`: rustc 1.96 has no `core::offload::{unknown[0]}`; this crate "
                                "needs a nightly with the offload component (`offload-ls doctor`)"))
        w.text(u.start_byte, u.end_byte, "")


def _mark_kernels(f: ScannedFile, w: Writer) -> None:
    """Replaces each kernel's attributes with the device-pass ones and renames it to its body
    function (returns nothing)."""
    for k in f.kernels:
        for a in k.attrs:
            inline = "" if k.inline_attr else " #[inline(always)]"
            w.text(a.start_byte, a.end_byte, f"#[cfg(offload_device)]{inline} #[allow(dead_code)]")
        nn = k.fn.child_by_field_name("name")
        w.text(nn.start_byte, nn.end_byte, BODY_PREFIX + k.name)


def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def copy_tree(src: Path, dst: Path, lowered: set[Path], skip: tuple[Path, ...], standalone: bool) -> None:
    """Copy the mirrored tree's other files; a standalone package's Cargo.toml gets a
    ``[workspace]`` of its own (so cargo does not look for one above the copy). Files of an
    earlier copy that the tree no longer has are removed."""
    keep: set[Path] = set(lowered)
    for path in package_files(src, skip):
        rel = path.relative_to(src)
        keep.add(rel)
        if rel in lowered:
            continue
        data = path.read_bytes()
        if standalone and rel == Path("Cargo.toml") and b"[workspace]" not in data:
            data += b"\n# added by offload-ls: the lowered copy is a workspace of its own\n[workspace]\n"
        _write_if_changed(dst / rel, data)
    for path in sorted(dst.rglob("*"), reverse=True):
        rel = path.relative_to(dst)
        if path.is_file() and rel not in keep and not (dst / rel.parts[0] / "CACHEDIR.TAG").exists():
            path.unlink()
