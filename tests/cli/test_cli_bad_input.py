"""``check`` on bad input: invalid UTF-8, binary, empty, huge and deeply nested files,
unreadable files, and failures inside the analysis. One file's problem never stops the
others."""

from __future__ import annotations

import dataclasses
import json
import os

from cli_helpers import FILL_MSG, only

from offload_ls.analysis.rules import all_rules
from offload_ls.cli import check as check_module

KERNEL = b"#[offload_kernel]\npub unsafe fn fill(out: *mut f32) {}\n"
FILL_LINE = f"warning[raw_pointer_kernel_param]: {FILL_MSG}"


def test_invalid_utf8_is_analyzed_and_located(cli, tmp_path, monkeypatch):
    # Two invalid bytes before the parameter: each counts as one column (it decodes to one
    # U+FFFD), as does the valid two-byte `é`: 35 code points (36 bytes) precede `*mut`.
    (tmp_path / "bad.rs").write_bytes(b"#[offload_kernel]\n"
                                      b"pub unsafe fn fill(/* \xff\xfe \xc3\xa9 */ out: *mut f32) {}\n")
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", "bad.rs", *only())
    assert (rc, err) == (0, "offload-ls: note: bad.rs: invalid UTF-8 at byte offset 40; "
                            "analysed with U+FFFD in its place\n")
    assert out.splitlines() == [f"bad.rs:2:36: {FILL_LINE}", "0 errors, 1 warning in 1 file"]


def test_binary_file_is_skipped_with_a_note(cli, tmp_path, monkeypatch):
    (tmp_path / "blob.rs").write_bytes(KERNEL + b"\x00\x01\x02")
    (tmp_path / "ok.rs").write_bytes(KERNEL)
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", ".", *only())
    assert rc == 0
    assert err == "offload-ls: note: blob.rs: skipped: binary file (a NUL byte in the first 8 KiB)\n"
    assert out.splitlines() == [f"ok.rs:2:25: {FILL_LINE}", "0 errors, 1 warning in 1 file (1 skipped)"]


def test_nul_byte_after_the_first_8_kib_is_not_binary(cli, tmp_path, monkeypatch):
    (tmp_path / "late.rs").write_bytes(KERNEL + b"//" + b"x" * 8192 + b"\x00\n")
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", "late.rs", *only())
    assert (rc, err) == (0, "")
    assert out.splitlines() == [f"late.rs:2:25: {FILL_LINE}", "0 errors, 1 warning in 1 file"]


def test_empty_file(cli, tmp_path, monkeypatch):
    (tmp_path / "empty.rs").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    assert cli("check", "empty.rs") == (0, "0 errors, 0 warnings in 1 file\n", "")
    rc, out, _ = cli("check", "empty.rs", "--format", "json")
    assert (rc, out) == (0, "[]\n")


def test_file_above_max_file_bytes_is_skipped(cli, tmp_path, monkeypatch):
    (tmp_path / "big.rs").write_bytes(KERNEL)  # 55 bytes
    monkeypatch.chdir(tmp_path)
    assert len(KERNEL) == 55
    rc, out, err = cli("check", "big.rs", "--max-file-bytes", "54", *only())
    assert (rc, out) == (0, "0 errors, 0 warnings in 0 files (1 skipped)\n")
    assert err == ("offload-ls: note: big.rs: skipped: file too large (55 bytes; the limit is 54 bytes, "
                   "see --max-file-bytes)\n")
    # At the limit exactly, the file is analysed.
    rc, out, err = cli("check", "big.rs", "--max-file-bytes", "55", *only())
    assert (rc, err) == (0, "")
    assert out.splitlines()[-1] == "0 errors, 1 warning in 1 file"


def test_default_limit_is_8_mib(cli, tmp_path, monkeypatch):
    body = KERNEL + b"//" + b"x" * (8 * 1024 * 1024 - len(KERNEL) - 2)
    (tmp_path / "limit.rs").write_bytes(body)
    (tmp_path / "over.rs").write_bytes(body + b"\n")
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", "limit.rs", "over.rs", *only())
    assert rc == 0
    assert err == ("offload-ls: note: over.rs: skipped: file too large (8388609 bytes; the limit is 8388608 bytes, "
                   "see --max-file-bytes)\n")
    assert out.splitlines() == [f"limit.rs:2:25: {FILL_LINE}", "0 errors, 1 warning in 1 file (1 skipped)"]


def test_deeply_nested_code_does_not_crash(cli, tmp_path, monkeypatch):
    """10,000 nested parentheses and blocks, in a kernel and in host code, with every rule
    on: no rule may fail (a RecursionError would be logged and turn the exit status to 2)."""
    n = 10_000
    head = b"#[offload_kernel]\npub unsafe fn fill(out: *mut f32, xs: &[f32], i: usize) {\n"
    files = {
        "parens.rs": head + b"    let v = " + b"(" * n + b"xs[i]" + b")" * n + b";\n}\n",
        "blocks.rs": head + b"    " + b"{" * n + b"let v = xs[i];" + b"}" * n + b"\n}\n",
        "host.rs": (b"fn host() " + b"{" * n + b"}" * n
                    + b"\nfn main() { let x = " + b"(" * n + b"1" + b")" * n + b"; }\n"),
        "unclosed.rs": b"fn broken() { let y = " + b"(" * n + b"[" * n,
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", ".")
    assert err == ""
    assert rc in (0, 1)  # other rules may report deny-level findings; 2 would mean a failure
    lines = out.splitlines()
    assert f"blocks.rs:2:25: {FILL_LINE}" in lines
    assert f"parens.rs:2:25: {FILL_LINE}" in lines
    assert lines[-1].endswith(" in 4 files")


def test_unreadable_file_is_an_error_and_others_are_checked(cli, tmp_path, monkeypatch):
    (tmp_path / "a.rs").write_bytes(KERNEL)
    (tmp_path / "b.rs").write_bytes(KERNEL)
    from offload_ls.workspace import read as read_module

    real = read_module.read_source

    def read_source(path, max_bytes):
        if path.name == "a.rs":
            raise PermissionError(13, "Permission denied")
        return real(path, max_bytes)

    monkeypatch.setattr(read_module, "read_source", read_source)
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", ".", *only())
    assert rc == 2
    assert err == "offload-ls: error: a.rs: Permission denied\n"
    assert out.splitlines() == [f"b.rs:2:25: {FILL_LINE}", "0 errors, 1 warning in 1 file"]


def test_a_fifo_is_refused_not_waited_on(cli, tmp_path, monkeypatch):
    # reading a FIFO blocks until something writes to it: `check` would hang for ever
    (tmp_path / "b.rs").write_bytes(KERNEL)
    os.mkfifo(tmp_path / "pipe.rs")
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", ".", "pipe.rs", *only())
    assert rc == 2
    assert err == "offload-ls: error: pipe.rs: not a regular file\n"
    assert out.splitlines() == [f"b.rs:2:25: {FILL_LINE}", "0 errors, 1 warning in 1 file"]
    rc, out, err = cli("check", "/dev/null")
    assert (rc, err) == (2, "offload-ls: error: /dev/null: not a regular file\n")


def test_a_manifest_path_checks_its_crate(cli, tmp_path, monkeypatch):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "k"\nversion = "0.1.0"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_bytes(KERNEL)
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", "Cargo.toml", *only())
    assert (rc, err) == (0, "")
    assert out.splitlines() == [f"src/lib.rs:2:25: {FILL_LINE}", "0 errors, 1 warning in 1 file"]


def test_analysis_crash_on_one_file_does_not_stop_the_others(cli, tmp_path, monkeypatch):
    (tmp_path / "a.rs").write_bytes(b"// poison\n" + KERNEL)
    (tmp_path / "b.rs").write_bytes(KERNEL)
    real = check_module.analyze_tree

    def analyze_tree(source, root, levels=None, **kwargs):
        if source.startswith(b"// poison"):
            raise RuntimeError("boom")
        return real(source, root, levels, **kwargs)

    monkeypatch.setattr(check_module, "analyze_tree", analyze_tree)
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", ".", *only())
    assert rc == 2
    assert err == "offload-ls: error: a.rs: analysis failed (RuntimeError: boom)\n"
    assert out.splitlines() == [f"b.rs:2:25: {FILL_LINE}", "0 errors, 1 warning in 1 file"]


def test_a_failing_rule_is_reported_with_its_file_and_exit_2(cli, tmp_path, monkeypatch):
    (tmp_path / "a.rs").write_bytes(KERNEL)
    rules = all_rules()

    def boom(ctx):
        raise RuntimeError("rule bug")

    monkeypatch.setitem(rules, "raw_pointer_kernel_param",
                        dataclasses.replace(rules["raw_pointer_kernel_param"], check=boom))
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", "a.rs", *only())
    assert rc == 2
    assert err == ("offload-ls: error: a.rs: rule raw_pointer_kernel_param failed; its findings are missing "
                   "for this file (RuntimeError: rule bug)\n")
    assert out == "0 errors, 0 warnings in 1 file\n"
    rc, _, err = cli("check", "a.rs", "--verbose", *only())
    assert rc == 2
    assert "Traceback (most recent call last):" in err
    assert err.rstrip().endswith("RuntimeError: rule bug")


def test_file_names_cannot_break_lines_or_drive_the_terminal(cli, tmp_path, monkeypatch):
    # a name with ESC and a newline would split a `file:line:col` line and send escape
    # sequences; a byte that is not UTF-8 would be lost: all are shown as escapes
    for name in (b"esc\x1b[31mred.rs", b"new\nline.rs", b"bad\xffname.rs"):
        with open(os.fsencode(tmp_path) + b"/" + name, "wb") as fh:
            fh.write(KERNEL)
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", ".", *only())
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        f"bad\\xffname.rs:2:25: {FILL_LINE}",
        f"esc\\x1b[31mred.rs:2:25: {FILL_LINE}",
        f"new\\nline.rs:2:25: {FILL_LINE}",
        "0 errors, 3 warnings in 3 files",
    ]
    rc, out, _ = cli("check", "--format", "json", ".", *only())
    assert [f["file"] for f in json.loads(out)] == ["bad\\xffname.rs", "esc\\x1b[31mred.rs", "new\\nline.rs"]
