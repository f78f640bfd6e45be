"""Build and run from the editor: executeCommand offload-ls.build / offload-ls.run, the
trust gate, the run report, and code lenses with the last run's figures."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
from lsp_helpers import capabilities, open_doc, wait_for
from lsprotocol import types

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "offload-kernels"


async def _init(client, root: Path, trusted: bool, **more):
    settings = {"trustedWorkspaces": [str(root)] if trusted else [], "checkOnSave": False, "deviceImage": "host",
                **more}
    client.set_configuration(settings, section="offload-ls")
    caps = capabilities(["utf-16"])
    caps.window = types.WindowClientCapabilities(work_done_progress=True)
    await client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=root.as_uri(), initialization_options=settings,
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)]))


def _command(client, name: str, args: list):
    return client.workspace_execute_command_async(types.ExecuteCommandParams(command=name, arguments=args))


async def test_build_is_refused_in_an_untrusted_workspace(client, tmp_path):
    crate = tmp_path / "offload-kernels"
    shutil.copytree(EXAMPLE, crate, ignore=shutil.ignore_patterns("target"))
    await _init(client, crate, trusted=False)
    uri = (crate / "src" / "main.rs").as_uri()
    result = await _command(client, "offload-ls.build", [{"uri": uri}])
    assert result == {"ok": False, "error": (
        f"offload-ls: {crate} is not a trusted workspace; building runs its build scripts and running runs its "
        f"code. Add it to offload-ls.trustedWorkspaces to allow this.")}
    run = await _command(client, "offload-ls.run", [{"uri": uri}])
    assert run["ok"] is False and "is not a trusted workspace" in run["error"]


async def test_command_arguments_a_bare_uri_and_errors_that_say_what_is_expected(client, tmp_path):
    crate = tmp_path / "offload-kernels"
    shutil.copytree(EXAMPLE, crate, ignore=shutil.ignore_patterns("target"))
    await _init(client, crate, trusted=False)
    uri = (crate / "src" / "main.rs").as_uri()
    # a bare string is the URI
    result = await _command(client, "offload-ls.build", [uri])
    assert result["ok"] is False and "is not a trusted workspace" in result["error"]
    with pytest.raises(Exception) as bad:
        await _command(client, "offload-ls.build", [42])
    assert 'expected one argument, an object {"uri", "deviceImage", "bundle"} with "uri" a file or crate URI' \
        in str(bad.value)
    with pytest.raises(Exception) as typo:
        await _command(client, "offload-ls.run", [{"uri": uri, "device_image": "gpu"}])
    assert 'unknown argument field(s) device_image; expected {"uri", "args", "device", "deviceImage", "target"}' \
        in str(typo.value)


@pytest.mark.toolchain
async def test_run_reports_launches_and_code_lenses_show_them(client, tmp_path):
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = tmp_path / "offload-kernels"
    shutil.copytree(EXAMPLE, crate, ignore=shutil.ignore_patterns("target"))
    await _init(client, crate, trusted=True)
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    open_doc(client, uri, main.read_text())
    result = await _command(client, "offload-ls.run", [{"uri": uri}])
    assert result["ok"] is True, result
    assert [(launch["kernel"], launch["h2dBytes"], launch["d2hBytes"]) for launch in result["launches"]] == [
        ("saxpy", 524292, 262144), ("daxpy", 1048584, 524288), ("triad", 1572872, 524288),
        ("fir", 524352, 262144), ("hash_u32", 400000, 200000)]
    assert result["report"].startswith("run report: exit status 0, ")
    # The program's output was streamed as log messages.
    await wait_for(lambda: any(m.message == "[run stdout] OK hash_u32: 50000 elements" for m in client.log_messages),
                   "streamed program output")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    titles = [lens.command.title for lens in lenses]
    assert titles.count("▶ Run on GPU") == 1 and titles.count("Build") == 1
    assert "last run: 1 launch, → 390.6 KiB ← 195.3 KiB, run " in " ".join(titles)
    report = await _command(client, "offload-ls.showRunReport", [{"uri": uri}])
    assert report["report"] == result["report"]


@pytest.mark.toolchain
async def test_profile_command_and_its_lenses(client, tmp_path):
    """`offload-ls.profile` from the editor: the pipeline of `offload-ls profile`; without a GPU
    the runtime's time trace only, shown on `fn main` after the run."""
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = tmp_path / "offload-kernels"
    shutil.copytree(EXAMPLE, crate, ignore=shutil.ignore_patterns("target"))
    await _init(client, crate, trusted=True)
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    open_doc(client, uri, main.read_text())
    before = await _lenses(client, uri)
    profile = [lens for lens in before if lens.command.title == "Profile on GPU"]
    assert len(profile) == 1 and profile[0].command.command == "offload-ls.profile"
    assert list(profile[0].command.arguments) == [{"uri": uri}]
    with pytest.raises(Exception) as typo:
        await _command(client, "offload-ls.profile", [{"uri": uri, "reps": 3}])
    assert 'unknown argument field(s) reps; expected {"uri", "args", "device", "deviceImage"}' in str(typo.value)
    result = await _command(client, "offload-ls.profile", [{"uri": uri}])
    assert result["ok"] is True, result
    lines = result["report"].splitlines()
    assert lines[0] == "profile (runtime log)"
    assert lines[1].startswith("  runtime (libomptarget time trace): kernel launches ")
    assert any(line.startswith("run report: exit status 0, ") for line in lines)
    assert result["profile"]["kernels"] == [] and result["profile"]["runtime"]["kernel_launches"]["events"] == 5
    assert [launch["kernel"] for launch in result["run"]["launches"]] == ["saxpy", "daxpy", "triad", "fir", "hash_u32"]
    after = [lens.command.title for lens in await _lenses(client, uri)]
    last = [t for t in after if t.startswith("last profile (runtime log): kernels ")]
    assert len(last) == 1 and " ms, copies → " in last[0] and last[0].endswith(" ms")
    assert not [t for t in after if t.startswith("profile: ")]  # no per-kernel figures without ncu


@pytest.mark.toolchain
@pytest.mark.remote
async def test_run_on_a_slurm_target_from_settings_reports_the_job(client, cluster, tmp_path):
    """"Run on GPU" with ``runTarget``/``runTargets``: staged, submitted with sbatch, the job's
    state in $/progress, the same run report; an unknown target is refused by name."""
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = tmp_path / "remote-job"
    shutil.copytree(Path(__file__).resolve().parents[1] / "gpu" / "fixtures" / "remote-job", crate,
                    ignore=shutil.ignore_patterns("target"))
    await _init(client, crate, trusted=True, runTarget="cluster", runTargets={
        "cluster": {"kind": "slurm", "workDir": str(tmp_path / "work"), "partition": "gpu", "gpus": 1,
                    "timeLimit": "5"},
        "broken": {"kind": "slurm", "partition": "gpu; rm -rf ~"}})
    uri = (crate / "src" / "main.rs").as_uri()
    result = await _command(client, "offload-ls.run", [{"uri": uri, "args": ["fail", "6"]}])
    assert result.get("exitStatus") == 6 and result["ok"] is False, result
    assert [(launch["kernel"], launch["h2dBytes"], launch["d2hBytes"])
            for launch in result["launches"]] == [("double", 16408, 16384)]
    assert "the program exited with status 6" in result["problems"]
    reports = [v.message for values in client.progress_reports.values() for v in values
               if getattr(v, "message", None)]
    assert any(m.startswith("submitted job ") for m in reports), reports
    # the job's state as it changes (a short job may end between two polls: its end state then)
    assert any(m.startswith("job ") and (" running on " in m or " failed" in m) for m in reports), reports
    await wait_for(lambda: any(m.message == "[run stdout] OK double: 4096" for m in client.log_messages),
                   "streamed job output")
    bad = await _command(client, "offload-ls.run", [{"uri": uri, "target": "broken"}])
    assert bad["ok"] is False and "`partition` = 'gpu; rm -rf ~': expected a partition name" in bad["error"]
    none = await _command(client, "offload-ls.run", [{"uri": uri, "target": "nope"}])
    assert "no run target named 'nope'; defined: local, broken, cluster" in none["error"]


async def _init_with_view(client, root: Path, view: bool):
    settings = {"trustedWorkspaces": [str(root)], "checkOnSave": False}
    client.set_configuration(settings, section="offload-ls")
    caps = capabilities(["utf-16"])
    if view:
        caps.experimental = {"commands": {"commands": ["offload-ls.showAssembly"]}}
    await client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=root.as_uri(), initialization_options=settings,
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)]))


async def _lenses(client, uri):
    """Code lenses of ``uri`` once the document's analysis has kernels."""
    for _ in range(200):
        found = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))) or []
        if any(lens.command.title == "Build for GPU" for lens in found):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError("no kernel code lenses")


async def test_show_ptx_lens_only_for_clients_with_the_view(client, tmp_path):
    crate = tmp_path / "offload-kernels"
    shutil.copytree(EXAMPLE, crate, ignore=shutil.ignore_patterns("target"))
    await _init_with_view(client, crate, view=False)
    main = crate / "src" / "main.rs"
    open_doc(client, main.as_uri(), main.read_text())
    assert not [lens for lens in await _lenses(client, main.as_uri()) if lens.command.title == "Show PTX"]


async def test_show_ptx_lens_and_the_assembly_command_map_kernel_lines(client, tmp_path):
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    crate = tmp_path / "offload-kernels"
    shutil.copytree(EXAMPLE, crate, ignore=shutil.ignore_patterns("target"))
    await _init_with_view(client, crate, view=True)
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    source = main.read_text()
    open_doc(client, uri, source)
    show = [lens for lens in await _lenses(client, uri) if lens.command.title == "Show PTX"]
    kernel_lines = {n for n, line in enumerate(source.splitlines()) if 'extern "gpu-kernel" fn ' in line}
    assert {lens.range.start.line for lens in show} >= kernel_lines and len(show) >= 5
    saxpy = next(lens for lens in show if list(lens.command.arguments) == [{"uri": uri, "kernel": "saxpy"}])
    assert saxpy.command.command == "offload-ls.showAssembly"
    bad = await _command(client, "offload-ls.assembly", [{"uri": uri, "format": "hex"}])
    assert bad == {"ok": False,
                   "error": "offload-ls: unknown listing format 'hex'; use one of ptx, amdgcn, llvm-ir, sass"}
    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        if os.environ.get("OFFLOAD_LS_REQUIRE_TOOLCHAIN"):
            pytest.fail("the offload toolchain is required here")
        return
    result = await _command(client, "offload-ls.assembly", list(saxpy.command.arguments))
    assert result["ok"] is True, result
    assert result["format"] == "ptx" and "llvm-ir" in result["formats"]
    lines = result["text"].splitlines()
    first, last = result["entry"]
    assert lines[first].startswith(".visible .entry saxpy(") and lines[last] == "}"
    body = next(n for n, line in enumerate(source.splitlines()) if "y[i] = a * x[i] + y[i];" in line)
    mapping = dict(map(tuple, result["map"]))
    fp = [i for i in range(first, last + 1) if lines[i].strip().startswith(("mul.rn.f32", "add.rn.f32", "fma.rn"))]
    assert fp and all(mapping[i] == body for i in fp)
    assert all(0 <= src < len(source.splitlines()) for src in mapping.values())
    missing = await _command(client, "offload-ls.assembly", [{"uri": uri, "kernel": "nope"}])
    assert missing["ok"] is False and "kernel `nope` is not in the ptx listing" in missing["error"]


@pytest.mark.toolchain
async def test_build_shows_the_ptx_figures_on_each_kernel(client, tmp_path):
    """After a GPU-image build, a kernel whose PTX multiplies and adds without fusing gets a
    lens with the numbers (opening its PTX) and the figures in its hover (gpu/ptx_perf.py)."""
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = tmp_path / "offload-kernels"
    shutil.copytree(EXAMPLE, crate, ignore=shutil.ignore_patterns("target"))
    await _init_with_view(client, crate, view=True)
    main = crate / "src" / "main.rs"
    uri, source = main.as_uri(), main.read_text()
    open_doc(client, uri, source)
    assert not [lens for lens in await _lenses(client, uri) if lens.command.title.startswith("PTX:")]
    result = await _command(client, "offload-ls.build", [{"uri": uri, "deviceImage": "gpu"}])
    assert result["ok"] is True, result
    assert {p["kernel"]: (p["fpInstructions"], p["fma"], p["unfused"]) for p in result["ptxPerf"]} == {
        "daxpy": (2, 0, 1), "fir": (32, 0, 16), "hash_u32": (0, 0, 0), "saxpy": (2, 0, 1), "triad": (2, 0, 1)}
    lenses = [lens for lens in await _lenses(client, uri) if lens.command.title.startswith("PTX:")]
    lines = source.splitlines()
    by_line = {lens.range.start.line: lens for lens in lenses}
    fir = next(n for n, line in enumerate(lines) if 'fn fir(' in line and "gpu-kernel" in line)
    assert by_line[fir].command.title == ('PTX: 16 mul+add unfused of 32 FP instructions '
                                          '(fp-contract = "fast" fuses them)')
    assert by_line[fir].command.command == "offload-ls.showAssembly"
    assert list(by_line[fir].command.arguments) == [{"uri": uri, "kernel": "fir"}]
    # on each definition of the four kernels (a GPU and a host-image one each), not on hash_u32 (no floating point)
    assert sorted(lens.command.arguments[0]["kernel"] for lens in lenses) == [
        "daxpy", "daxpy", "fir", "fir", "saxpy", "saxpy", "triad", "triad"]
    saxpy = next(n for n, line in enumerate(lines) if 'fn saxpy(' in line and "gpu-kernel" in line)
    col = lines[saxpy].index("saxpy")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=saxpy, character=col + 1)))
    text = hover.contents.value
    assert "**PTX** (last build): saxpy: 2 FP instructions, 0 FMA, 1 multiply-add pair unfused" in text
    assert 'Set fp-contract = "fast" in [package.metadata.offload-ls]' in text


def test_expected_request_errors_are_logged_in_one_line():
    """Arguments of the wrong shape (answered with the error) and requests cancelled as the
    session ends are logged without a traceback; other failures keep theirs."""
    import logging
    import sys

    from pygls.protocol import default_converter

    from offload_ls.lsp.command_args import BuildArgs, register_command_args
    from offload_ls.lsp.server import _one_line_for_bad_input

    converter = default_converter()
    register_command_args(converter)

    def record(exc: BaseException) -> logging.LogRecord:
        try:
            raise exc
        except BaseException:  # noqa: BLE001
            info = sys.exc_info()
        return logging.LogRecord("pygls.protocol.json_rpc", logging.ERROR, __file__, 1,
                                 'Exception occurred for message "%s"', ("m1",), info)

    try:
        converter.structure(42, BuildArgs)
    except TypeError as exc:
        shaped = record(exc)
    assert _one_line_for_bad_input(shaped) and shaped.exc_info is None
    assert shaped.getMessage() == ('Exception occurred for message "m1": TypeError: expected one argument, an object '
                                   '{"uri", "deviceImage", "bundle"} with "uri" a file or crate URI (file:///..), '
                                   'got 42')
    cancelled = record(asyncio.CancelledError())
    assert _one_line_for_bad_input(cancelled) and cancelled.exc_info is None
    other = record(ValueError("a real bug"))
    assert _one_line_for_bad_input(other) and other.exc_info is not None
    percent = record(TypeError('bad arguments {"uri": "100%s"}: x; expected {"uri"}'))
    assert _one_line_for_bad_input(percent) and percent.getMessage().endswith('{"uri": "100%s"}: x; expected {"uri"}')
