"""Settings: initializationOptions, workspace/configuration, didChangeConfiguration,
Cargo.toml metadata, and their precedence (defaults < Cargo.toml < editor)."""

from __future__ import annotations

from lsp_helpers import RULE, initialize, log_line, of_rule, open_doc, published, wait_for
from lsprotocol import types

SRC = """#[offload_kernel]
fn scale(x: *mut [f32; 4]) {
}
"""
WARNING, ERROR = types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Error


def severities(client, uri):
    return [d.severity for d in of_rule(client.diagnostics.get(uri, ()))]


async def test_did_change_configuration_repulls_and_reanalyzes(client, tmp_path):
    await initialize(client, tmp_path, configuration={"rules": {}})
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    assert [d.severity for d in of_rule(await published(client, uri, version=1))] == [WARNING]

    client.set_configuration({"rules": {RULE: "allow"}}, section="offload-ls")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: severities(client, uri) == [], "the finding to disappear (level allow)")

    client.set_configuration({"rules": {RULE: "deny"}}, section="offload-ls")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: severities(client, uri) == [ERROR], "the finding to come back as an error")


async def test_did_change_configuration_payload_without_configuration_support(client, tmp_path):
    await initialize(client, tmp_path, configuration_support=False)
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    assert [d.severity for d in of_rule(await published(client, uri, version=1))] == [WARNING]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"offload-ls": {"rules": {RULE: "allow"}}}))
    await wait_for(lambda: severities(client, uri) == [], "the finding to disappear (level allow)")


async def test_initialization_options_and_their_problems(client, tmp_path):
    await initialize(client, tmp_path, init_options={
        "offload-ls": {"rules": {"no_such_rule": "deny", RULE: "deny"}, "debounceMs": -5},
    })
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    assert [d.severity for d in of_rule(await published(client, uri, version=1))] == [ERROR]
    unknown = await log_line(client, lambda m: "no_such_rule" in m, "unknown-rule log line")
    assert unknown.startswith("settings: offload-ls.rules: unknown rule `no_such_rule` (known: ")
    assert RULE in unknown
    debounce = await log_line(client, lambda m: "debounceMs" in m, "debounceMs log line")
    assert debounce.startswith("settings: offload-ls.debounceMs: invalid value -5 (")
    await wait_for(lambda: client.messages, "showMessage")
    assert [(m.type, m.message) for m in client.messages] == [(
        types.MessageType.Warning,
        "offload-ls: 2 problems in the settings were ignored; see the offload-ls log for details")]


def write_crate(root, level: str, extra: str = ""):
    (root / "Cargo.toml").write_text(
        f'[package]\nname = "k"\nversion = "0.1.0"\n\n[package.metadata.offload-ls]\n'
        f'{RULE} = "{level}"\n{extra}', encoding="utf-8")
    src = root / "src"
    src.mkdir(exist_ok=True)
    return src / "lib.rs"


async def test_cargo_metadata_level_and_manifest_change(client, tmp_path):
    lib = write_crate(tmp_path, "deny")
    await initialize(client, tmp_path)
    await log_line(client, lambda m: m.startswith("watching "), "the watcher to start")
    open_doc(client, lib.as_uri(), SRC)
    assert [d.severity for d in of_rule(await published(client, lib.as_uri(), version=1))] == [ERROR]

    write_crate(tmp_path, "allow")  # seen by the watcher: cache dropped, document re-analysed
    await wait_for(lambda: severities(client, lib.as_uri()) == [], "Cargo.toml allow to apply")


async def test_editor_settings_override_cargo_metadata(client, tmp_path):
    lib = write_crate(tmp_path, "deny")
    await initialize(client, tmp_path, configuration={"rules": {RULE: "warn"}},
                     init_options={"rules": {RULE: "warn"}})
    open_doc(client, lib.as_uri(), SRC)
    assert [d.severity for d in of_rule(await published(client, lib.as_uri(), version=1))] == [WARNING]


async def test_cargo_metadata_problems_are_logged(client, tmp_path):
    lib = write_crate(tmp_path, "deny", extra='no_such_rule = "warn"\n')
    await initialize(client, tmp_path)
    open_doc(client, lib.as_uri(), SRC)
    assert [d.severity for d in of_rule(await published(client, lib.as_uri(), version=1))] == [ERROR]
    line = await log_line(client, lambda m: "no_such_rule" in m, "Cargo.toml problem")
    assert line.startswith(f"{tmp_path / 'Cargo.toml'}: [package.metadata.offload-ls]: unknown rule `no_such_rule`")
