"""Build and run from the editor: executeCommand offload-ls.build / offload-ls.run, the
trust gate, the run report, and code lenses with the last run's figures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_helpers import capabilities, open_doc, wait_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "offload-kernels"


async def _init(client, root: Path, trusted: bool):
    settings = {"trustedWorkspaces": [str(root)] if trusted else [], "checkOnSave": False, "deviceImage": "host"}
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
    assert 'unknown argument field(s) device_image; expected {"uri", "args", "device", "deviceImage"}' \
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
    assert [(l["kernel"], l["h2dBytes"], l["d2hBytes"]) for l in result["launches"]] == [
        ("saxpy", 524292, 262144), ("daxpy", 1048584, 524288), ("triad", 1572872, 524288),
        ("fir", 524352, 262144), ("hash_u32", 400000, 200000)]
    assert result["report"].startswith("run report: exit status 0, ")
    # The program's output was streamed as log messages.
    await wait_for(lambda: any(m.message == "[run stdout] OK hash_u32: 50000 elements" for m in client.log_messages),
                   "streamed program output")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    titles = [l.command.title for l in lenses]
    assert titles.count("▶ Run on GPU") == 1 and titles.count("Build") == 1
    assert "last run: 1 launch, → 390.6 KiB ← 195.3 KiB, run " in " ".join(titles)
    report = await _command(client, "offload-ls.showRunReport", [{"uri": uri}])
    assert report["report"] == result["report"]
