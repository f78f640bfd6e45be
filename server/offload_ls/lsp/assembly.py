"""The kernel assembly view: ``offload-ls.assembly`` and the "Show PTX" code lens.

``offload-ls.assembly`` ``{"uri", "kernel"?, "format"?}`` compiles the crate of ``uri`` for
the GPU target with line tables (:func:`offload_ls.workflow.assemble_crate`, reused while no
source changed) and returns::

    {"ok": true, "format": "ptx", "formats": ["ptx", "llvm-ir"], "arch": "sm_90",
     "kernel": "saxpy", "entry": [first, last], "text": "...", "file": "/abs/.../device.ptx",
     "map": [[listing line, source line], ...]}

Lines in ``entry`` and ``map`` are 0-based (LSP lines; no column is involved, so no UTF-16
conversion); ``map`` covers the lines that came from the document of ``uri`` only.

The lens runs the client-side command ``offload-ls.showAssembly`` (same arguments), which
opens a read-only document beside the source and highlights the lines of one side that
belong to the cursor's line on the other. A client gets the lens only when it says it has
that command, in ``capabilities.experimental.commands.commands`` (rust-analyzer's
convention for client commands); VS Code's and Neovim's offload-ls plugins do.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lsprotocol import types

from offload_ls.analysis.model import Ecosystem
from offload_ls.lsp.command_args import FORMATS, SHOW_ASSEMBLY, AssemblyArgs
from offload_ls.lsp.documents import uri_path
from offload_ls.lsp.positions import to_range
from offload_ls.lsp.session import DocumentSnapshot

if TYPE_CHECKING:
    from offload_ls.lsp.commands import GpuCommands

#: Kernels whose crate offload-ls's own pipeline compiles (rustc offload); Rust-CUDA, rust-gpu,
#: CubeCL, krnl and cuda-oxide kernels are built by their own toolchains.
_OWN_PIPELINE = (Ecosystem.OFFLOAD, Ecosystem.GPU_KERNEL_ABI)


def lenses(doc: DocumentSnapshot) -> list[types.CodeLens]:
    """A "Show PTX" lens on each rustc-offload kernel's name (when the client can show it)."""
    kernels = [k for k in doc.analysis.kernels if k.ecosystem in _OWN_PIPELINE]
    if doc.path is None or not kernels or not doc.client.assembly_view:
        return []
    title = "Show assembly" if (doc.settings.gpuTarget or "").startswith("amdgcn") else "Show PTX"
    return [types.CodeLens(range=to_range(doc.line_index, k.name_span, doc.encoding),
                           command=types.Command(title, SHOW_ASSEMBLY, arguments=[{"uri": doc.uri, "kernel": k.name}]))
            for k in kernels]


def _own_binary(manifest, path) -> str | None:
    """The binary a document belongs to by cargo's layout (``src/bin/NAME.rs``,
    ``src/bin/NAME/main.rs``); ``None``: the crate's default binary."""
    try:
        rel = path.resolve().relative_to(manifest.parent.resolve()).parts if path is not None else ()
    except ValueError:
        return None
    if len(rel) == 3 and rel[:2] == ("src", "bin") and rel[2].endswith(".rs"):
        return rel[2][:-3]
    if len(rel) == 4 and rel[:2] == ("src", "bin") and rel[3] == "main.rs":
        return rel[2]
    return None


async def assembly(gpu: "GpuCommands", args: AssemblyArgs) -> dict:
    """The ``offload-ls.assembly`` command (see the module docstring)."""
    from offload_ls.workflow import assemble_crate

    if args.format is not None and args.format not in FORMATS:
        return gpu.refuse(f"offload-ls: unknown listing format {args.format!r}; use one of {', '.join(FORMATS)}")
    path = uri_path(args.uri)
    outcome, manifest, token, refusal = await gpu.job(
        args.uri, "Assembly", "device assembly failed",
        lambda m, report, cancel, say: assemble_crate(m, report, bin_name=_own_binary(m, path), cancel=cancel,
                                                      progress=say))
    if outcome is None:
        return refusal
    gpu.finish(token, manifest, "cancelled" if outcome.cancelled else ("done" if outcome.ok else "failed"))
    if not outcome.ok:
        for d in outcome.diagnostics:
            gpu.server.log(f"[assembly] {d.level}: {d.message} [{d.source}]", types.MessageType.Error)
        return gpu.refuse("offload-ls: the device pass failed, no assembly was written; see the offload-ls log"
                           if not outcome.cancelled else "offload-ls: cancelled")
    fmt = args.format or ("ptx" if "ptx" in outcome.files else "amdgcn")
    if fmt not in outcome.files:
        return gpu.refuse(f"offload-ls: no {fmt} listing" + (
            ": SASS needs ptxas and nvdisasm from the CUDA toolkit" if fmt == "sass" else ""))
    listing = outcome.listing(fmt)
    entry = listing.functions.get(args.kernel) if args.kernel else None
    if args.kernel and entry is None:
        return gpu.refuse(f"offload-ls: kernel `{args.kernel}` is not in the {fmt} listing: a generic kernel, or one "
                           f"without #[no_mangle], has a mangled name there (functions there: "
                           f"{', '.join(sorted(listing.functions)) or 'none'})")
    source = os.path.realpath(path) if path is not None else ""
    return {"ok": True, "format": fmt, "formats": sorted(outcome.files), "arch": outcome.arch, "kernel": args.kernel,
            "entry": list(entry) if entry else None, "text": listing.text, "file": str(outcome.files[fmt]),
            "map": [[i, line - 1] for i, line in listing.line_map(source)]}
