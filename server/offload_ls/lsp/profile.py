"""Profile on GPU from the editor: the ``offload-ls.profile`` command, its lenses and hover.

``offload-ls.profile {uri, args?, device?, deviceImage?}`` builds the crate of ``uri`` if stale,
runs it once with the offload runtime's time trace and, with an NVIDIA GPU and Nsight
Compute, once under ``ncu`` (:func:`offload_ls.workflow.profile_crate`, the pipeline of
``offload-ls profile``). The reply: ``{"ok", "report"}`` (the text ``offload-ls profile``
prints, then the run report), ``"profile"`` (:meth:`~offload_ls.gpu.profile.ProfileReport.to_json`:
per-launch figures in ns, bytes, per second, percent) and ``"run"`` (the run report's JSON).

After a profile: a lens on each profiled kernel with its median launch (``profile: 93.6 µs ·
4.06 TB/s (84.7% of peak) · 14 regs · occupancy 89%``), its hover gets every figure with the
roofline's reading, and ``fn main`` gets the runtime's totals. "Profile on GPU" sits on
``fn main`` beside "Run on GPU" in files that launch kernels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from offload_ls.gpu.profile import KernelSummary, ProfileReport, per_kernel, render
from offload_ls.lsp.command_args import PROFILE, ProfileArgs
from offload_ls.lsp.crate_state import CrateState

if TYPE_CHECKING:
    from offload_ls.lsp.commands import GpuCommands

async def profile(gpu: "GpuCommands", args: ProfileArgs) -> dict:
    """The ``offload-ls.profile`` command (see the module docstring)."""
    from offload_ls.workflow import profile_crate

    s = gpu.server.session.settings

    def work(manifest, report, cancel, say):
        image = gpu.image_here(args.deviceImage or s.deviceImage, report,
                               "; only the offload runtime's timings can be measured (kernels run on the CPU)")
        return profile_crate(manifest, report, args.args, device=args.device if args.device is not None else s.device,
                             device_image=image, timeout=s.runTimeoutS, cancel=cancel, progress=say)

    outcome, manifest, token, refusal = await gpu.job(args.uri, "Profile", "profile failed", work)
    if outcome is None:
        return refusal
    prof = outcome.profile
    rep = outcome.report if prof is not None else None  # (profile_crate gives both or neither)
    refusal = gpu.after_build_and_run(token, manifest, outcome.build, rep, "profile", "profiled")
    if refusal is not None:
        return refusal
    gpu.server.session.record(manifest, run=rep, profile=prof)
    text = render(prof) + "\n\n" + rep.render()
    gpu.server.log(text, types.MessageType.Info if rep.ok else types.MessageType.Warning)
    kernels = per_kernel(prof)
    gpu.server.show(f"offload-ls: profiled {manifest.parent.name} ({prof.source}"
                    + (f", {len(kernels)} kernel{'s' if len(kernels) != 1 else ''}" if kernels else "") + ")"
                    + ("" if rep.ok else " — the run failed"),
                    types.MessageType.Info if rep.ok else types.MessageType.Warning)
    gpu.server.refresh_code_lenses()
    return {"ok": rep.ok, "report": text, "profile": prof.to_json(), "run": rep.to_json()}


def main_lenses(crate: CrateState, uri: str, rng: types.Range) -> list[types.CodeLens]:
    """"Profile on GPU" on ``fn main`` (range ``rng``), and the runtime's totals of the
    crate's last profile."""
    out = [types.CodeLens(range=rng, command=types.Command("Profile on GPU", PROFILE, arguments=[{"uri": uri}]))]
    prof: ProfileReport | None = crate.profile
    rt = prof.runtime if prof is not None else None
    if rt is not None:
        title = (f"last profile ({prof.source}): kernels {rt.kernel_launches[1] / 1e3:.2f} ms, copies "
                 f"→ {rt.host_to_device[1] / 1e3:.2f} ms ← {rt.device_to_host[1] / 1e3:.2f} ms")
        out.append(types.CodeLens(range=rng, command=types.Command(title, PROFILE, arguments=[{"uri": uri}])))
    return out


def figures(crate: CrateState) -> dict[str, KernelSummary]:
    """Kernel name -> the crate's last profile's figures (empty without a profile)."""
    prof = crate.profile
    return per_kernel(prof) if prof is not None else {}


def kernel_lens(figures: dict[str, KernelSummary], uri: str, kernel: str, rng: types.Range) -> types.CodeLens | None:
    """The profile ``figures`` (:func:`figures`) of ``kernel`` as a lens on its name (``rng``),
    if it was profiled."""
    s = figures.get(kernel)
    if s is None:
        return None
    return types.CodeLens(range=rng, command=types.Command(s.lens_title(), PROFILE, arguments=[{"uri": uri}]))


def hover_markdown(crate: CrateState, kernel: str) -> str:
    """The last profile's figures of ``kernel`` as Markdown (``""`` when it was not profiled)."""
    s = figures(crate).get(kernel)
    if s is None:
        return ""
    prof = crate.profile
    return f"\n\n**Profile** ({prof.source}" + (f", {prof.gpu}" if prof.gpu else "") + ", last run):\n" + s.markdown()
