"""Defects found by a new user (fresh clone): option order of `run`, timeouts, arch
checks, never overwriting the user's files (check -o, build --bundle)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from offload_ls.gpu.bundle import BundleError, make_bundle


def test_run_options_after_path_are_ours_and_after_dashdash_the_programs(cli, tmp_path):
    rc, out, err = cli("run", str(tmp_path), "--timeout", "-5", "--", "--timeout", "x")
    assert rc == 2
    assert "argument --timeout: must be more than 0 seconds, got -5" in err
    rc, out, err = cli("run", str(tmp_path / "nope"), "--", "--timeout", "x")
    assert rc == 2  # `--timeout x` went to the program, not to argparse
    assert err == (f"offload-ls: error: {tmp_path / 'nope'}: no Cargo.toml here; "
                   "pass a crate directory or its Cargo.toml\n")


def test_check_output_never_overwrites_a_source_file(cli, tmp_path):
    src = tmp_path / "k.rs"
    src.write_text("fn main() {}\n")
    rc, out, err = cli("check", str(src), "-o", str(src))
    assert rc == 2
    assert err == (f"offload-ls: error: --output {src} would overwrite a source file; choose a report file such "
                   f"as offload-ls.json\n")
    assert src.read_text() == "fn main() {}\n"


def test_arch_must_fit_the_target(cli, tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    rc, out, err = cli("build", str(tmp_path), "--arch", "gfx90a")
    assert rc == 2
    assert err == ("offload-ls: error: --arch gfx90a is not an NVIDIA arch (sm_XX) for target nvptx64-nvidia-cuda; "
                   "for AMD GPUs add --target amdgcn-amd-amdhsa\n")


def _exe(tmp_path: Path) -> Path:
    exe = tmp_path / "prog"
    shutil.copy2(shutil.which("true"), exe)
    return exe


def test_bundle_refuses_a_file_and_keeps_files_it_did_not_write(tmp_path):
    exe = _exe(tmp_path)
    target = tmp_path / "afile"
    target.write_text("mine")
    with pytest.raises(BundleError) as e:
        make_bundle(exe, target)
    assert str(e.value) == f"{target} is a file, not a directory; choose an empty or new directory for the bundle"
    b = make_bundle(exe, tmp_path / "b")
    assert (b.directory / "prog").is_file() and (b.directory / "run").is_file()
    make_bundle(exe, tmp_path / "b")  # rebuilding our own bundle is fine
    (tmp_path / "b" / "mydata.txt").write_text("precious")
    with pytest.raises(BundleError) as e:
        make_bundle(exe, tmp_path / "b")
    assert str(e.value) == (f"{tmp_path / 'b'} holds files offload-ls did not write (mydata.txt); move them or "
                            f"choose another directory")
    assert (tmp_path / "b" / "mydata.txt").read_text() == "precious"
