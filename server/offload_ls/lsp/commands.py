"""Build and run from the editor: the ``workspace/executeCommand`` handlers. A finished
build's resources and PTX counts and a run's report go to the session's per-crate results
(lsp/crate_state.py), which lsp/kernel_views.py shows as code lenses and hover.

Commands (arguments are one JSON object, typed below):

- ``offload-ls.build`` ``{"uri", "deviceImage"?, "bundle"?}`` — build the crate of ``uri``;
- ``offload-ls.run`` ``{"uri", "args"?, "device"?, "deviceImage"?}`` — build if stale, run
  with the runtime log; streams the program's output as ``window/logMessage`` and the
  ``offload-ls/runOutput`` notification; ends with the run report;
- ``offload-ls.showRunReport`` ``{"uri"}`` — the last run report of the crate (JSON);
- ``offload-ls.doctor`` — the doctor's report (JSON), also logged as text;
- ``offload-ls.cancel`` ``{"uri"}`` — cancel a running build or run of that crate;
- ``offload-ls.assembly`` ``{"uri", "kernel"?, "format"?}`` — the kernel assembly view's data
  (:mod:`offload_ls.lsp.assembly`).

Nothing is built or run for an untrusted workspace (``trustedWorkspaces``).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from offload_ls.gpu.launch import RunReport
from offload_ls.gpu.targets import select_target
from offload_ls.lsp.command_args import RUN_OUTPUT, BuildArgs, RunArgs, UriArgs
from offload_ls.lsp.documents import uri_path
from offload_ls.toolchain.doctor import HOST_ONLY
from offload_ls.toolchain.process import CancelToken
from offload_ls.toolchain.transfer_plan import human_bytes

if TYPE_CHECKING:
    from offload_ls.lsp.host import Host

class GpuCommands:
    """Build, run and profile from the editor (``server.gpu``): one job per crate at a time
    (``session.jobs``); each finished job's figures go to the session (:meth:`Session.record`)."""

    def __init__(self, server: "Host") -> None:
        self.server = server

    # ------------------------------------------------------------------ helpers

    def _crate(self, uri: str) -> Path | None:
        path = uri_path(uri)
        if path is None:
            return None
        if path.name == "Cargo.toml":
            return path
        return self.server.session.manifest_for(path if path.suffix else path / "Cargo.toml")

    def refuse(self, message: str) -> dict:
        """Show ``message`` as an error and return it as the command's answer."""
        self.server.show(message, types.MessageType.Error)
        return {"ok": False, "error": message}

    async def _prepare(self, uri: str):
        manifest = self._crate(uri)
        if manifest is None:
            return None, self.refuse(f"offload-ls: no Cargo.toml found for {uri}")
        if not self.server.session.trusted(manifest):
            return None, self.refuse(
                f"offload-ls: {manifest.parent} is not a trusted workspace; building runs its build scripts "
                f"and running runs its code. Add it to offload-ls.trustedWorkspaces to allow this.")
        if manifest in self.server.session.jobs:
            return None, self.refuse(f"offload-ls: a build or run of {manifest.parent.name} is already running")
        report = await asyncio.get_running_loop().run_in_executor(None, self.server.session.toolchain.doctor)
        if report.pipeline == HOST_ONLY:
            return None, self.refuse("offload-ls: no offload-capable toolchain: " + "; ".join(report.missing)
                                      + (f". Install: {report.install}" if report.install else ""))
        return (manifest, report), None

    def _progress(self, title: str, manifest: Path):
        token = f"offload-ls/{title.lower().replace(' ', '-')}/{uuid.uuid4().hex[:12]}"
        cancel = CancelToken()
        self.server.session.jobs[manifest] = cancel
        progress = self.server.progress
        progress.on_cancel(token, cancel.cancel)
        if progress.supported():
            progress.begin(token, f"offload-ls: {title}", manifest.parent.name, cancellable=True)

        def report(message: str) -> None:
            self.server.log(f"[{title.lower()}] {message}")
            progress.report(token, message)
        return token, cancel, report

    def image_here(self, requested: str | None, report, why: str) -> str | None:
        """The images to build for a run on this machine: ``requested``, or ``host`` (with a
        log line ending in ``why``) when none was asked for and there is no GPU."""
        if requested is None and not report.gpus:
            self.server.log(f"no GPU found: building with the host image{why}", types.MessageType.Warning)
            return "host"
        return requested

    def after_build_and_run(self, token: str, manifest: Path, built, rep, what: str, done: str) -> dict | None:
        """After a job that builds, then runs (``what``: run, profile; ``done``: its participle):
        end its progress, keep the build's figures for lenses and hover, and return the refusal
        to answer when nothing ran (cancelled during the build, or the build failed), else ``None``."""
        self.finish(token, manifest, "no run" if rep is None else
                     "cancelled" if rep.cancelled else ("ok" if rep.ok else "failed"))
        self.server.session.record(manifest, resources=tuple(built.resources), ptx_perf=tuple(built.ptx_perf))
        if rep is not None:
            return None
        if built.cancelled:
            return self.refuse(f"offload-ls: the {what} of {manifest.parent.name} was cancelled during its build")
        for d in built.diagnostics:
            self.server.log(f"[build] {d.level}: {d.message} [{d.source}]", types.MessageType.Error)
        return self.refuse(f"offload-ls: the build failed, nothing was {done}; see the offload-ls log")

    def finish(self, token: str, manifest: Path, message: str) -> None:
        """The job of ``manifest`` ended: end its progress with ``message``."""
        self.server.session.jobs.pop(manifest, None)
        self.server.progress.forget(token)
        self.server.progress.end(token, message)

    async def job(self, uri: str, title: str, failed: str, work):
        """Run ``work(manifest, report, cancel, say)`` (a coroutine function) for the crate of
        ``uri`` as a cancellable job with ``$/progress`` titled ``title``, after the trust and
        toolchain checks. Returns ``(outcome, manifest, progress token, None)``, or
        ``(None, None, None, refusal)`` when it was refused or raised (``failed``: the
        message's start, e.g. "build failed"); the caller ends the progress with :meth:`finish`."""
        prepared, refusal = await self._prepare(uri)
        if refusal is not None:
            return None, None, None, refusal
        manifest, report = prepared
        token, cancel, say = self._progress(title, manifest)
        try:
            outcome = await work(manifest, report, cancel, say)
        except Exception as exc:  # noqa: BLE001 - CrateError, ValueError, BundleError: tell the user
            self.finish(token, manifest, "failed")
            return None, None, None, self.refuse(f"offload-ls: {failed}: {exc}")
        return outcome, manifest, token, None

    # ------------------------------------------------------------------ commands

    async def build(self, args: BuildArgs) -> dict:
        from offload_ls.workflow import build_crate

        outcome, manifest, token, refusal = await self.job(
            args.uri, "Build", "build failed",
            lambda m, r, cancel, say: build_crate(m, r,
                                                  device_image=args.deviceImage
                                                  or self.server.session.settings.deviceImage,
                                                  bundle_dir=Path(args.bundle) if args.bundle else None,
                                                  cancel=cancel, progress=say))
        if outcome is None:
            return refusal
        self.finish(token, manifest, "cancelled" if outcome.cancelled else ("done" if outcome.ok else "failed"))
        # a failed build removed the binary the old figures were of: they go too
        self.server.session.record(manifest, resources=tuple(outcome.resources), ptx_perf=tuple(outcome.ptx_perf))
        for d in outcome.diagnostics:
            self.server.log(f"[build] {d.level}: {d.message} [{d.source}]", types.MessageType.Warning)
        for r in outcome.resources:
            self.server.log(f"[build] kernel {r.summary()}",
                            types.MessageType.Warning if r.spills else types.MessageType.Info)
        result = {"ok": outcome.ok, "exe": str(outcome.exe) if outcome.exe else None, "images": outcome.images,
                  "fresh": outcome.fresh, "seconds": round(outcome.seconds, 2),
                  "resources": [asdict(r) for r in outcome.resources], "warnings": outcome.warnings,
                  "ptxPerf": [p.to_json() for p in outcome.ptx_perf],
                  "bundle": str(outcome.bundle.directory) if outcome.bundle else None}
        if outcome.ok:
            self.server.show(f"offload-ls: built {outcome.exe.name} ({', '.join(outcome.images) or 'no images'})",
                             types.MessageType.Info)
        elif not outcome.cancelled:
            self.server.show("offload-ls: build failed; see the offload-ls log", types.MessageType.Error)
        self.server.refresh_code_lenses()
        return result

    async def run(self, args: RunArgs) -> dict:
        from offload_ls.workflow import run_crate

        s = self.server.session.settings

        def out(manifest: Path, stream: str):
            def send(line: str) -> None:
                if stream == "stderr" and " info: " in line:
                    return  # the runtime's log: summarised in the report
                self.server.log(f"[run {stream}] {line}")
                self.server.protocol.notify(RUN_OUTPUT, {"uri": manifest.as_uri(), "stream": stream, "line": line})
            return send

        def work(manifest, report, cancel, say):
            # TargetError: refused with its message
            target = select_target(manifest, args.target, s.runTargets, s.runTarget)
            image = args.deviceImage or s.deviceImage
            if target.remote:
                image = image or "gpu"  # the GPU is on the target
                say(f"running on {target.describe()} (run target {target.name})")
            else:
                image = self.image_here(image, report, " (kernels run on the CPU through libomptarget's "
                                                       "Virtual Host Device)")
            return run_crate(manifest, report, args.args, device=args.device if args.device is not None else s.device,
                             device_image=image, timeout=s.runTimeoutS, cancel=cancel, progress=say,
                             on_stdout=out(manifest, "stdout"), on_stderr=out(manifest, "stderr"), target=target)

        outcome, manifest, token, refusal = await self.job(args.uri, "Run", "run failed", work)
        if outcome is None:
            return refusal
        rep = outcome.report
        refusal = self.after_build_and_run(token, manifest, outcome.build, rep, "run", "run")
        if refusal is not None:
            return refusal
        self.server.session.record(manifest, run=rep)
        self.server.log(rep.render(), types.MessageType.Info if rep.ok else types.MessageType.Warning)
        if rep.cancelled:
            self.server.show(f"offload-ls: the run of {manifest.parent.name} was cancelled", types.MessageType.Info)
            self.server.refresh_code_lenses()
            return report_json(rep)
        self.server.show(f"offload-ls: {manifest.parent.name} " + ("ran OK" if rep.ok else "run failed")
                         + f" — {len(rep.log.launches)} launches, {human_bytes(rep.log.h2d_bytes)} to device, "
                           f"{human_bytes(rep.log.d2h_bytes)} back" + (f"; {rep.problems[0]}" if rep.problems else ""),
                         types.MessageType.Info if rep.ok else types.MessageType.Warning)
        self.server.refresh_code_lenses()
        return report_json(rep)

    def show_report(self, args: UriArgs) -> dict:
        manifest = self._crate(args.uri)
        rep = self.server.session.result_of(manifest).run
        if rep is None:
            return {"ok": False, "error": "no run yet: use offload-ls.run first"}
        self.server.log(rep.render())
        return report_json(rep)

    async def doctor(self) -> dict:
        report = await asyncio.get_running_loop().run_in_executor(None, self.server.session.toolchain.fresh_doctor)
        return report.to_json()

    async def wind_down(self, timeout_s: float = 10.0) -> None:
        """Cancel every running build or run and wait (at most ``timeout_s``) for them to
        end, so that a Slurm job is cancelled and a remote program killed before the
        server exits (``shutdown``)."""
        for token in list(self.server.session.jobs.values()):
            token.cancel()
        deadline = asyncio.get_running_loop().time() + timeout_s
        while self.server.session.jobs and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)

    def stop_untrusted(self) -> set[Path]:
        """Cancel the build or run of every crate no longer trusted; their manifests."""
        stopped = set()
        for manifest, token in list(self.server.session.jobs.items()):
            if not self.server.session.trusted(manifest):
                token.cancel()
                stopped.add(manifest)
        return stopped

    def cancel(self, args: UriArgs) -> dict:
        manifest = self._crate(args.uri)
        token = self.server.session.jobs.get(manifest) if manifest else None
        if token is None:
            return {"ok": False, "error": "nothing is running for this crate"}
        token.cancel()
        return {"ok": True}


def report_json(rep: RunReport) -> dict:
    return rep.to_json()


