"""Compile on save over stdio: progress, pass-labelled compiler diagnostics, generations
(nothing stale after a fix), cancellation by a newer save, the transfer plan as inlay
hints, and the workspace-trust gate (audited: no compiler starts untrusted)."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from lsp_helpers import capabilities, open_doc, wait_for
from lsprotocol import types

FIXTURES = Path(__file__).resolve().parents[1] / "toolchain" / "fixtures"


def _copy(tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name
    shutil.copytree(FIXTURES / name, dst, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    return dst


def _save(client, uri: str) -> None:
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))


def _compiler(diags, source_prefix="offload-ls("):
    return [d for d in diags if (d.source or "").startswith(source_prefix)]


async def _init(client, root: Path, trusted: bool, extra: dict | None = None):
    """Initialize with progress and inlay-hint support, ``root`` as the workspace folder."""
    settings = {"trustedWorkspaces": [str(root)] if trusted else [], "debounceMs": 0, "transferPlan": False,
                **(extra or {})}
    client.set_configuration(settings, section="offload-ls")
    caps = capabilities(["utf-16"])
    caps.window = types.WindowClientCapabilities(work_done_progress=True)
    await client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=root.as_uri(), initialization_options=settings,
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)]))


@pytest.mark.toolchain
async def test_save_reports_device_error_then_fix_clears_it(client, tmp_path):
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = _copy(tmp_path, "device-error")
    await _init(client, crate, trusted=True)
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    open_doc(client, uri, main.read_text())
    _save(client, uri)

    def device_errors():
        diags = client.diagnostics.get(uri, [])
        return [d for d in diags if d.source == "offload-ls(device nvptx64 sm_90)" and d.code == "E0599"]

    [err] = await wait_for(device_errors, "the device pass's E0599", timeout=240)
    assert err.message == "no method named `sin` found for type `f32` in the current scope"
    assert err.severity == types.DiagnosticSeverity.Error
    assert err.range == types.Range(start=types.Position(line=23, character=30),
                                    end=types.Position(line=23, character=33))
    # the lint that predicted it is not shown beside the compiler's word (workflow/check.py `predicted`)
    assert not [d for d in client.diagnostics[uri] if d.code == "host_only_api_in_kernel"]
    # $/progress: begin ... end for the check
    reports = [v for values in client.progress_reports.values() for v in values]
    assert any(isinstance(v, types.WorkDoneProgressBegin) and v.cancellable for v in reports)
    # The diagnostics are published as soon as the checks finish; the progress ends just after.
    await wait_for(lambda: any(isinstance(v, types.WorkDoneProgressEnd)
                               for values in client.progress_reports.values() for v in values),
                   "the check's progress to end", timeout=30)

    # Fix on disk and save: the error goes away, nothing stale remains.
    main.write_text(main.read_text().replace("(i as f32).sin()", "(i as f32) * 0.5"))
    _save(client, uri)
    await wait_for(lambda: not device_errors() and client.published and
                   not _compiler([d for d in client.diagnostics.get(uri, []) if d.severity == 1]),
                   "the compiler error to be cleared", timeout=240)


@pytest.mark.toolchain
async def test_newer_save_cancels_running_check_and_only_final_text_counts(client, tmp_path):
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = _copy(tmp_path, "device-error")
    await _init(client, crate, trusted=True)
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    open_doc(client, uri, main.read_text())
    _save(client, uri)  # starts a cold device check (builds core: many seconds)
    await wait_for(lambda: any(isinstance(v, types.WorkDoneProgressReport)
                               for vs in client.progress_reports.values() for v in vs),
                   "the first check to be running", timeout=60)
    main.write_text(main.read_text().replace("(i as f32).sin()", "(i as f32) * 0.5"))
    _save(client, uri)

    def ends():
        return [v for vs in client.progress_reports.values() for v in vs
                if isinstance(v, types.WorkDoneProgressEnd)]

    await wait_for(lambda: len(ends()) >= 2, "both checks to end", timeout=300)
    assert ends()[0].message == "cancelled"
    assert ends()[1].message.startswith("done in ")
    # Only the final text's (clean) result was published: no E0599 at any time after.
    assert not any(d.code == "E0599" for p in client.published if p.uri == uri for d in p.diagnostics)


async def test_untrusted_workspace_starts_no_compiler(client, tmp_path):
    crate = _copy(tmp_path, "device-error")
    # Audit: wrappers named cargo/rustc first on PATH and as RUSTC/CARGO settings record
    # any start. The server inherits this environment only through the settings we pass,
    # so point every toolchain setting at the wrappers too.
    bin_dir = tmp_path / "audit-bin"
    bin_dir.mkdir()
    marker = tmp_path / "compiler-started"
    for name in ("cargo", "rustc"):
        w = bin_dir / name
        w.write_text(f"#!/bin/sh\necho {name} \"$@\" >> {marker}\nexit 1\n")
        w.chmod(w.stat().st_mode | stat.S_IXUSR)
    await _init(client, crate, trusted=False,
                extra={"rustc": str(bin_dir / "rustc"), "cargo": str(bin_dir / "cargo")})
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    open_doc(client, uri, main.read_text())
    _save(client, uri)
    message = await wait_for(lambda: next((m.message for m in client.log_messages
                                           if "is not a trusted workspace" in m.message), None),
                             "the untrusted notice")
    assert message == (f"{crate} is not a trusted workspace: offload-ls does not compile it (compiling runs "
                       f"build scripts and proc macros). Lints still run. To allow it, add the folder to the "
                       f"setting offload-ls.trustedWorkspaces.")
    # Lints still arrive; no compiler ever started.
    await wait_for(lambda: uri in client.diagnostics, "lint diagnostics")
    import asyncio
    await asyncio.sleep(1.5)  # longer than the compile debounce
    assert not marker.exists()


@pytest.mark.toolchain
async def test_transfer_plan_inlay_hints_and_compiler_revealed_problems(client, tmp_path):
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = _copy(tmp_path, "transfer-kinds")
    await _init(client, crate, trusted=True, extra={"transferPlan": True})
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    text = main.read_text()
    open_doc(client, uri, text)
    _save(client, uri)

    def transfer_warnings():
        return [d for d in client.diagnostics.get(uri, []) if d.code == "offload_transfer_plan"]

    warnings = await wait_for(transfer_warnings, "transfer-plan findings", timeout=300)
    assert sorted(d.message for d in warnings) == sorted([
        "the host pass maps 4 bytes for `c` (`*mut f32`): ONE `f32`, not the buffer it points into; "
        "the kernel reads and writes unmapped memory past it",
        "by-value `f32` argument `k` is passed to the kernel like a pointer (kernel map type 0x20 lacks "
        "LITERAL 0x100): the kernel receives an address, not the value; pass a reference (`&f32`) instead",
    ])
    line = next(i for i, text_line in enumerate(text.splitlines()) if "core::intrinsics::offload(mixed" in text_line)
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=line + 1, character=0))))
    src_line = text.splitlines()[line]
    expected_cols = [src_line.index("(a, b, c, k)") + 1 + off for off in (0, 3, 6, 9)]
    assert [(h.position.line, h.position.character, h.label) for h in hints] == [
        (line, expected_cols[0], "→ 4 KiB:"), (line, expected_cols[1], "⇄ 4 KiB:"),
        (line, expected_cols[2], "⇄ 4 B:"), (line, expected_cols[3], "⚠ an address, not the value:")]
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=src_line.index("mixed") + 1)))
    assert "| `a` | 4 KiB | — | 0x1 / 0x20 / 0x0 |" in hover.contents.value
    assert "| **total** | **8.0 KiB** | **4.0 KiB** | |" in hover.contents.value  # 4096+4096+4, 4096+4


@pytest.mark.toolchain
async def test_broken_cargo_toml_is_reported_on_the_manifest(client, tmp_path):
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = _copy(tmp_path, "device-error")
    manifest = crate / "Cargo.toml"
    manifest.write_text(manifest.read_text().replace('version = "0.1.0"', 'version = 0.1.0'))
    await _init(client, crate, trusted=True)
    main = crate / "src" / "main.rs"
    open_doc(client, main.as_uri(), main.read_text())
    _save(client, main.as_uri())
    diags = await wait_for(lambda: client.diagnostics.get(manifest.as_uri()), "a diagnostic on Cargo.toml", timeout=120)
    [d] = diags
    assert d.message.startswith(f"offload check not run: {manifest}: cargo metadata failed: ")
    assert d.range == types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=9))
    assert d.severity == types.DiagnosticSeverity.Warning


async def test_trusted_workspace_reports_the_doctor_at_start(client, tmp_path):
    crate = _copy(tmp_path, "device-error")
    await _init(client, crate, trusted=True)
    text = await wait_for(lambda: next((m.message for m in client.log_messages
                                        if m.message.startswith("offload-ls doctor:\n")), None),
                          "the doctor's report in the log", timeout=120)
    assert "\nRust toolchains:\n" in text
    assert "\nPipeline: " in text
