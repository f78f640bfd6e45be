"""What the last build, run and profile say about a file's kernels, as code lenses and hover
text: "▶ Run on GPU" / "Build" / "Profile on GPU" on ``fn main`` of files that launch kernels;
"Build for GPU", the last run's launches and bytes, the profile's figures and the compiled
PTX's counts on each kernel; its resources (``ptxas -v``) and PTX figures in hover; Build /
Run as source actions. Functions of a :class:`~offload_ls.lsp.session.DocumentSnapshot`,
whose ``crate`` holds the crate's last build, run and profile.
"""

from __future__ import annotations

from lsprotocol import types

from offload_ls.analysis.model import Span
from offload_ls.gpu.ptx_perf import PtxKernelPerf
from offload_ls.lsp import assembly, profile
from offload_ls.lsp.command_args import BUILD, REPORT, RUN, SHOW_ASSEMBLY
from offload_ls.lsp.positions import to_range
from offload_ls.lsp.session import DocumentSnapshot
from offload_ls.toolchain.transfer_plan import human_bytes


def code_lenses(doc: DocumentSnapshot) -> list[types.CodeLens]:
    """"▶ Run on GPU" / "Build" above ``fn main`` of files that launch kernels, and
    "Build for GPU" plus the last run's figures above each kernel."""
    if doc.path is None:
        return []
    analysis = doc.analysis
    enc = doc.encoding
    lenses = []
    uri = doc.uri
    if analysis.launches:
        main = find_main(doc.root)
        if main is not None:
            rng = to_range(doc.line_index, main, enc)
            lenses += [types.CodeLens(range=rng, command=types.Command("▶ Run on GPU", RUN, arguments=[{"uri": uri}])),
                       types.CodeLens(range=rng, command=types.Command("Build", BUILD, arguments=[{"uri": uri}])),
                       *profile.main_lenses(doc.crate, uri, rng)]
    rep = doc.crate.run
    per_kernel = rep.log.per_kernel() if rep else {}
    profiled = profile.figures(doc.crate)
    for k in analysis.kernels:
        rng = to_range(doc.line_index, k.name_span, enc)
        lenses.append(types.CodeLens(range=rng,
                                     command=types.Command("Build for GPU", BUILD, arguments=[{"uri": uri}])))
        figs = per_kernel.get(k.name)
        if figs:
            title = (f"last run: {figs['launches']} launch{'es' if figs['launches'] != 1 else ''}, "
                     f"→ {human_bytes(figs['h2d_bytes'])} ← {human_bytes(figs['d2h_bytes'])}, "
                     f"run {rep.seconds:.2f} s")
            lenses.append(types.CodeLens(range=rng, command=types.Command(title, REPORT, arguments=[{"uri": uri}])))
        lens = profile.kernel_lens(profiled, uri, k.name, rng)
        if lens is not None:
            lenses.append(lens)
        for perf in instances(doc.crate.ptx_perf, k.name):
            if perf.unfused or perf.bounds_checks:
                lenses.append(ptx_lens(doc, perf, k.name, rng))
    return lenses + assembly.lenses(doc)


def ptx_lens(doc: DocumentSnapshot, perf: PtxKernelPerf, kernel: str, rng) -> types.CodeLens:
    """The compiled kernel's figures (gpu/ptx_perf.py) as a lens on ``kernel``; it opens the
    PTX where the client can show it. A generic kernel's instantiation is named."""
    parts = []
    if perf.bounds_checks:
        parts.append(f"{perf.bounds_checks} bounds check{'s' if perf.bounds_checks != 1 else ''} left")
    if perf.unfused:
        parts.append(f"{perf.unfused} mul+add unfused of {perf.fp_instructions} FP instructions "
                     f"(fp-contract = \"fast\" fuses them)")
    head = "PTX" if perf.kernel == kernel else f"PTX {perf.kernel}"
    title = f"{head}: " + " · ".join(parts)
    uri = doc.uri
    cmd = (types.Command(title, SHOW_ASSEMBLY, arguments=[{"uri": uri, "kernel": perf.kernel}])
           if doc.client.assembly_view else types.Command(title, BUILD, arguments=[{"uri": uri}]))
    return types.CodeLens(range=rng, command=cmd)


def resources_markdown(doc: DocumentSnapshot, kernel: str) -> str | None:
    """Hover text of a kernel: the last build's resources and PTX figures, the last profile's."""
    text = ""
    for r in instances(doc.crate.resources, kernel):
        warn = "\n\n⚠ spills registers to local memory" if r.spills else ""
        text += f"\n\n**Resources** (ptxas -v, last build): {r.summary()}{warn}"
    for perf in instances(doc.crate.ptx_perf, kernel):
        text += f"\n\n**PTX** (last build): {perf.summary()}"
        if perf.advice():
            text += f"\n\n⚠ {perf.advice()}"
    text += profile.hover_markdown(doc.crate, kernel)
    return text or None


def source_actions(doc: DocumentSnapshot, span: Span) -> list[types.CodeAction]:
    """"Build for GPU" / "Run on GPU" as source actions when the byte ``span`` touches a
    kernel or a launch."""
    analysis = doc.analysis
    touches = [k.span for k in analysis.kernels] + [la.span for la in analysis.launches]
    if not any(t.start <= span.end and span.start <= t.end for t in touches):
        return []
    arg = [{"uri": doc.uri}]
    return [types.CodeAction(title="Build for GPU", kind=types.CodeActionKind.Source + ".offload-ls.build",
                             command=types.Command(title="Build for GPU", command=BUILD, arguments=arg)),
            types.CodeAction(title="Run on GPU", kind=types.CodeActionKind.Source + ".offload-ls.run",
                             command=types.Command(title="Run on GPU", command=RUN, arguments=arg))]


def instances(items, kernel: str) -> list:
    """The entries of ``items`` (with a ``kernel`` symbol name) that belong to the source kernel
    ``kernel``: itself, or the instantiations of a generic one, which the lowering names
    ``<kernel>__<type>`` (``scale__f32``; docs/upstream-offload.md)."""
    return [x for x in items if x.kernel == kernel or x.kernel.startswith(kernel + "__")]


def find_main(root):
    """Span of the name of a top-level ``fn main`` (or ``None``)."""
    for child in root.children:
        if child.type == "function_item":
            name = child.child_by_field_name("name")
            if name is not None and name.text == b"main":
                return Span(name.start_byte, name.end_byte)
    return None
