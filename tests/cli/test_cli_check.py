"""``offload-ls check``: text output, rule levels (defaults, Cargo.toml, flags), exit
statuses, paths."""

from __future__ import annotations

import io

from cli_helpers import FILL_MSG, FIXTURES, SCALE_N, SCALE_X, SCALE_X_HELP, only

from offload_ls.cli.check import check_paths


def test_text_output_exact_and_exit_0(cli, in_fixtures):
    rc, out, err = cli("check", "warn_crate", *only())
    assert (rc, err) == (0, "")
    assert out.splitlines() == [SCALE_X, SCALE_X_HELP, SCALE_N, "0 errors, 2 warnings in 2 files"]


def test_columns_count_code_points_not_bytes(cli, in_fixtures):
    # Line 6 has `/* αβ */` before the parameters: 2 two-byte characters.
    line = (FIXTURES / "warn_crate/src/lib.rs").read_text(encoding="utf-8").splitlines()[5]
    assert line.index("*mut") + 1 == 53
    assert line.encode().index(b"*mut") + 1 == 55
    _, out, _ = cli("check", "warn_crate/src/lib.rs", *only())
    assert out.splitlines()[0].startswith("warn_crate/src/lib.rs:6:53: ")


def test_cargo_metadata_deny_gives_error_and_exit_1(cli, in_fixtures):
    rc, out, err = cli("check", "deny_crate", *only())
    assert (rc, err) == (1, "")
    assert out.splitlines() == [
        f"deny_crate/src/lib.rs:2:25: error[raw_pointer_kernel_param]: {FILL_MSG}",
        "1 error, 0 warnings in 1 file",
    ]


def test_flags_override_cargo_metadata_last_flag_wins(cli, in_fixtures):
    rc, out, _ = cli("check", "deny_crate", *only(), "--warn", "raw_pointer_kernel_param")
    assert rc == 0
    assert out.splitlines()[0] == f"deny_crate/src/lib.rs:2:25: warning[raw_pointer_kernel_param]: {FILL_MSG}"
    rc, out, _ = cli("check", "deny_crate", *only(), "-W", "raw_pointer_kernel_param", "-A", "raw_pointer_kernel_param")
    assert (rc, out) == (0, "0 errors, 0 warnings in 1 file\n")
    rc, out, _ = cli("check", "deny_crate", *only(), "-A", "raw_pointer_kernel_param", "-D", "raw_pointer_kernel_param")
    assert rc == 1
    assert out.splitlines()[-1] == "1 error, 0 warnings in 1 file"


def test_deny_flag_turns_warnings_into_errors(cli, in_fixtures):
    rc, out, _ = cli("check", "warn_crate", *only(), "--deny", "raw_pointer_kernel_param")
    assert rc == 1
    assert out.splitlines() == [
        SCALE_X.replace("warning[", "error["), SCALE_X_HELP, SCALE_N.replace("warning[", "error["),
        "2 errors, 0 warnings in 2 files",
    ]


def test_bad_cargo_metadata_is_warned_about_and_defaults_apply(cli, in_fixtures):
    rc, out, err = cli("check", "bad_metadata", *only())
    assert rc == 0
    assert out.splitlines() == [
        f"bad_metadata/src/lib.rs:2:25: warning[raw_pointer_kernel_param]: {FILL_MSG}",
        "0 errors, 1 warning in 1 file",
    ]
    lines = err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("offload-ls: warning: bad_metadata/Cargo.toml: [package.metadata.offload-ls]: "
                               "unknown rule `no_such_rule` (known: raw_pointer_kernel_param, ")
    assert lines[1] == ("offload-ls: warning: bad_metadata/Cargo.toml: [package.metadata.offload-ls]"
                        ".raw_pointer_kernel_param: level must be \"allow\", \"warn\" or \"deny\", got 'loud'")


def test_workspace_metadata_applies_to_member_and_package_metadata_wins(cli, tmp_path, monkeypatch):
    (tmp_path / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["a", "b"]\n\n[workspace.metadata.offload-ls]\nraw_pointer_kernel_param = "deny"\n')
    for member, extra in (("a", ""), ("b", '\n[package.metadata.offload-ls]\nraw_pointer_kernel_param = "allow"\n')):
        (tmp_path / member / "src").mkdir(parents=True)
        (tmp_path / member / "Cargo.toml").write_text(f'[package]\nname = "{member}"\nversion = "0.1.0"\n{extra}')
        (tmp_path / member / "src/lib.rs").write_text("#[offload_kernel]\npub unsafe fn fill(out: *mut f32) {}\n")
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", ".", *only())
    assert (rc, err) == (1, "")
    assert out.splitlines() == [
        f"a/src/lib.rs:2:25: error[raw_pointer_kernel_param]: {FILL_MSG}",
        "1 error, 0 warnings in 2 files",
    ]


def test_directory_of_loose_files_without_cargo_toml(cli, in_fixtures):
    rc, out, _ = cli("check", "plain_dir", *only())
    assert rc == 0
    assert out.splitlines() == [
        "plain_dir/kernel.rs:2:25: warning[raw_pointer_kernel_param]: kernel `copy` takes `src: *const u8`, "
        "a raw pointer to ONE `u8`: the offload runtime copies 1 byte (a single element) to the device, "
        "not the buffer it points into; pass `&[u8; N]` instead",
        "plain_dir/kernel.rs:2:41: warning[raw_pointer_kernel_param]: kernel `copy` takes `dst: *mut u8`, "
        "a raw pointer to ONE `u8`: the offload runtime copies 1 byte (a single element) to the device and "
        "back, not the buffer it points into; pass `&mut [u8; N]` instead",
        "0 errors, 2 warnings in 1 file",
    ]


def test_several_paths_in_order_each_file_once(cli, in_fixtures):
    rc, out, _ = cli("check", "deny_crate", "warn_crate/src/lib.rs", "warn_crate", "./deny_crate/src/lib.rs", *only())
    assert rc == 1
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines if "[raw_pointer" in line] == [
        "deny_crate/src/lib.rs", "warn_crate/src/lib.rs", "warn_crate/src/lib.rs"]
    assert lines[-1] == "1 error, 2 warnings in 3 files"


def test_target_directory_is_skipped(cli, work):
    target = work / "warn_crate" / "target" / "debug"
    target.mkdir(parents=True)
    (target / "generated.rs").write_text("#[offload_kernel]\npub unsafe fn g(p: *mut f32) {}\n")
    rc, out, _ = cli("check", "warn_crate", *only())
    assert rc == 0
    assert "target" not in out
    assert out.splitlines()[-1] == "0 errors, 2 warnings in 2 files"


def test_nonexistent_path_is_an_error_but_other_paths_are_checked(cli, in_fixtures):
    rc, out, err = cli("check", "no/such/dir", "deny_crate", "missing.rs", *only())
    assert rc == 2  # an error outranks the deny-level finding's 1
    assert err.splitlines() == [
        "offload-ls: error: no/such/dir: No such file or directory",
        "offload-ls: error: missing.rs: No such file or directory",
    ]
    assert out.splitlines() == [
        f"deny_crate/src/lib.rs:2:25: error[raw_pointer_kernel_param]: {FILL_MSG}",
        "1 error, 0 warnings in 1 file",
    ]


def test_directory_without_rust_files_warns(cli, tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("no rust here\n")
    monkeypatch.chdir(tmp_path)
    assert cli("check", "docs") == (0, "0 errors, 0 warnings in 0 files\n",
                                    "offload-ls: warning: docs: no .rs files found\n")


def test_path_outside_current_directory_is_shown_absolute(cli, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    target = FIXTURES / "deny_crate"
    rc, out, _ = cli("check", str(target), *only())
    assert rc == 1
    assert out.splitlines()[0] == f"{target.as_posix()}/src/lib.rs:2:25: error[raw_pointer_kernel_param]: {FILL_MSG}"


def test_relative_path_from_subdirectory_with_dotdot(cli, monkeypatch):
    monkeypatch.chdir(FIXTURES / "warn_crate")
    rc, out, _ = cli("check", "../deny_crate/src/lib.rs", *only())
    assert rc == 1
    # Not below the current directory: shown as an absolute path.
    expected = (FIXTURES / "deny_crate" / "src" / "lib.rs").as_posix()
    assert out.splitlines()[0].startswith(f"{expected}:2:25: error[")


def test_output_file(cli, work):
    rc, out, err = cli("check", "warn_crate", *only(), "--output", "report.txt")
    assert (rc, out, err) == (0, "", "")
    assert (work / "report.txt").read_text(encoding="utf-8").splitlines() == [
        SCALE_X, SCALE_X_HELP, SCALE_N, "0 errors, 2 warnings in 2 files"]


def test_output_file_in_missing_directory_is_an_error(cli, work):
    rc, out, err = cli("check", "warn_crate", *only(), "-o", "no/dir/report.txt")
    assert (rc, out) == (2, "")
    assert err == "offload-ls: error: no/dir/report.txt: No such file or directory\n"


def test_suppression_comment_is_honoured(cli, tmp_path, monkeypatch):
    (tmp_path / "k.rs").write_text(
        "// offload-ls: allow(raw_pointer_kernel_param)\n#[offload_kernel]\npub unsafe fn g(p: *mut f32) {}\n")
    monkeypatch.chdir(tmp_path)
    assert cli("check", "k.rs", *only()) == (0, "0 errors, 0 warnings in 1 file\n", "")


def test_current_directory_is_reported_relative(cli, in_fixtures):
    rc, out, _ = cli("check", ".", *only())
    assert rc == 1
    files = sorted({line.split(":")[0] for line in out.splitlines()[:-1] if not line.startswith("  ")})
    assert files == ["bad_metadata/src/lib.rs", "deny_crate/src/lib.rs", "plain_dir/kernel.rs", "warn_crate/src/lib.rs"]
    assert out.splitlines()[-1] == "1 error, 5 warnings in 5 files"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_counter_only_on_a_terminal_and_only_for_many_files(tmp_path):
    for i in range(201):
        (tmp_path / f"f{i:03}.rs").write_text("fn f() {}\n")
    tty = _Terminal()
    result = check_paths([tmp_path], stderr=tty, cwd=tmp_path)
    assert len(result.files) == 201
    shown = tty.getvalue()
    assert shown.startswith("\rchecking [1/201]\rchecking [25/201]")
    assert shown.endswith("\rchecking [200/201]\rchecking [201/201]\r\x1b[K")
    pipe = io.StringIO()  # not a terminal: nothing
    check_paths([tmp_path], stderr=pipe, cwd=tmp_path)
    assert pipe.getvalue() == ""
    few = _Terminal()  # a terminal, but few files: nothing
    check_paths([tmp_path / "f000.rs"], stderr=few, cwd=tmp_path)
    assert few.getvalue() == ""


def test_a_crate_is_checked_as_a_whole(cli, tmp_path, monkeypatch):
    """A kernel in one file, its launch and the constants it uses in another: `check` on
    one file of the crate still reads the rest of the crate (the nearest Cargo.toml)."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "k"\nversion = "0.1.0"\nedition = "2021"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernels.rs").write_text(
        "#[rustc_offload_kernel]\n"
        "pub extern \"gpu-kernel\" fn fill(y: &mut [f32; LEN]) {\n"
        "    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;\n"
        "    if i < PADDED { y[i] = 1.0; }\n"
        "}\n")
    (tmp_path / "src" / "main.rs").write_text(
        "mod kernels;\nconst LEN: usize = 1000;\nconst PADDED: usize = 1024;\n"
        "fn main() { let mut y = [0.0; LEN]; "
        "core::intrinsics::offload(kernels::fil, [4, 1, 1], [256, 1, 1], (&mut y,)); }\n")
    monkeypatch.chdir(tmp_path)
    rc, out, _ = cli("check", "src/kernels.rs", "src/main.rs")
    lines = out.splitlines()
    # `i < PADDED` (1024, from main.rs) does not bound `y` (LEN = 1000 elements)
    assert lines[0].startswith("src/kernels.rs:4:23: warning[unchecked_thread_index]: `i` comes from the thread index")
    # the launch names `fil`; the crate's kernel is `fill` (defined in kernels.rs)
    assert lines[1] == ("src/main.rs:4:72: error[unknown_launch_kernel]: this launch names `fil`, but no function "
                        "of that name is defined in the crate; did you mean `fill`?")
    assert lines[2] == "1 error, 1 warning in 2 files"
    assert rc == 1
