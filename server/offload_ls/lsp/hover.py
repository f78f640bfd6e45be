"""``textDocument/hover`` on kernels and launch sites.

On a kernel's name (at its definition): the ecosystem, the marker, and each parameter with
what crossing the host/device boundary does to it (``Param.transfer``: to / tofrom / by
value / unknown, with its arrow). On a launch (the kernel name at the launch, or anywhere
in the launch's span): the workgroup/thread dimensions and the argument -> parameter
pairing with each parameter's transfer. Facts come from the analysis layer
(``analysis/transfer.py``, docs/offload-notes.md "What the host pass copies").
"""

from __future__ import annotations

from lsprotocol import types

from offload_ls.analysis.engine import FileAnalysis
from offload_ls.analysis.model import Kernel, Launch, Param, Span, Transfer
from offload_ls.analysis.preload import PreloadGuard, preloaded_args
from offload_ls.lsp.positions import to_range
from offload_ls.syntax.text import Encoding, LineIndex

_TRANSFER_TEXT = {
    Transfer.TO: "copied host → device before the launch",
    Transfer.TOFROM: "copied host → device before the launch and device → host after it",
    Transfer.BY_VALUE: "passed as a kernel argument, nothing copied",
    Transfer.UNKNOWN: "the type does not say what is copied",
}


def transfer_text(param: Param, kernel: Kernel) -> str:
    """``— ⇄ **tofrom**: copied ...`` for one parameter (Markdown)."""
    t = param.transfer
    if t is Transfer.UNKNOWN and not kernel.ecosystem.runtime_maps_arguments:
        what = f"{kernel.ecosystem.value} host code copies data explicitly"
    elif param.kind == "region":
        what = ("a `Region`: its slice (length known at run time) is copied host → device before the launch "
                "and back after it; each thread reaches its part through the partitioning strategy")
    else:
        what = _TRANSFER_TEXT[t]
    return f"— {t.arrow} **{t.value}**: {what}"


def _param_text(param: Param) -> str:
    return f"`{param.name}: {param.type_text}`"


def kernel_markdown(kernel: Kernel) -> str:
    """Hover text for a kernel definition."""
    lines = [f"**GPU kernel `{kernel.name}`** — {kernel.ecosystem.value} (`{kernel.marker}`)", ""]
    if not kernel.params:
        lines.append("No parameters.")
    else:
        lines.append("Parameters:")
        lines += [f"- {_param_text(p)} {transfer_text(p, kernel)}" for p in kernel.params]
    return "\n".join(lines)


def _dims_text(source: bytes, span: Span | None) -> str:
    return source[span.start:span.end].decode("utf-8", errors="replace") if span else "?"


def _preload_text(guard: PreloadGuard, source: bytes) -> str:
    line = source.count(b"\n", 0, guard.span.start) + 1
    fn = "preload_mut" if guard.mutable else "preload"
    back = f", and comes back when `{guard.guard}` is dropped" if guard.mutable else ""
    return (f"— already on the device: `{fn}` (line {line}) copied it there; nothing is copied for it "
            f"at this launch{back}")


def launch_markdown(launch: Launch, kernel: Kernel | None, source: bytes) -> str:
    """Hover text for a launch site.

    Args:
        launch: the launch; kernel: its kernel if defined in the same file, else ``None``;
        source: the file's bytes (for the dimension expressions as written).
    """
    name = launch.kernel or "?"
    head = f"**Launch of kernel `{name}`** (`{launch.form}`)"
    if kernel is not None:
        head += f" — {kernel.ecosystem.value}"
    lines = [head, ""]
    if launch.workgroup_dim is None and launch.thread_dim is None:
        lines.append("- no workgroup/thread dimensions at this launch")
    else:
        lines.append(f"- workgroup dimensions: `{_dims_text(source, launch.workgroup_dim_span)}`")
        lines.append(f"- thread dimensions: `{_dims_text(source, launch.thread_dim_span)}`")
        total = launch.total_threads
        lines.append(f"- threads in total: {total}" if total is not None
                     else "- threads in total: not known (a dimension is not an integer literal)")
    lines.append("")
    if kernel is None:
        lines.append(f"Kernel `{name}` is not defined in this file; its parameters are not known.")
        lines.append("")
        lines.append("Arguments:")
        lines += [f"- `{a.text}`" for a in launch.args]
        return "\n".join(lines)
    lines.append("Arguments ↦ parameters:")
    params = kernel.params
    preloaded = preloaded_args(source, launch)
    for i in range(max(len(launch.args), len(params))):
        if i < len(launch.args) and i < len(params):
            p = params[i]
            what = _preload_text(preloaded[i], source) if i in preloaded else transfer_text(p, kernel)
            lines.append(f"- `{launch.args[i].text}` ↦ {_param_text(p)} {what}")
        elif i < len(launch.args):
            lines.append(f"- `{launch.args[i].text}` ↦ no parameter (the kernel takes {len(params)})")
        else:
            p = params[i]
            lines.append(f"- missing argument ↦ {_param_text(p)}")
    return "\n".join(lines)


def hover_at(analysis: FileAnalysis, source: bytes, offset: int) -> tuple[str, Span] | None:
    """Markdown and the hovered span for UTF-8 byte ``offset``, or ``None``.

    A kernel's name matches when the offset is inside it or just after its last byte;
    a launch matches anywhere in its span (the innermost launch wins).
    """
    for k in analysis.kernels:
        if k.name_span.start <= offset <= k.name_span.end:
            return kernel_markdown(k), k.name_span
    hits = [la for la in analysis.launches if la.span.start <= offset < la.span.end
            or (la.kernel_span is not None and la.kernel_span.start <= offset <= la.kernel_span.end)]
    if not hits:
        return None
    launch = min(hits, key=lambda la: la.span.end - la.span.start)
    kernel = next((k for k in analysis.kernels if k.name == launch.kernel), None)
    return launch_markdown(launch, kernel, source), launch.span


def to_hover(markdown: str, span: Span, index: LineIndex, encoding: Encoding,
             markdown_ok: bool = True) -> types.Hover:
    """Wrap hover text as an LSP Hover (plain text if the client does not render Markdown)."""
    kind = types.MarkupKind.Markdown if markdown_ok else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=markdown),
                       range=to_range(index, span, encoding))
