"""``cargo offload ..``: the real cargo runs the ``cargo-offload`` entry point installed
beside this interpreter (cargo finds external subcommands on PATH)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import FIXTURES, SCALE_N, SCALE_X, SCALE_X_HELP, only

from offload_ls.cli.cargo import translate

pytestmark = pytest.mark.toolchain

#: Debian's cargo (``make toolchain``) first: a rustup proxy without a toolchain answers nothing
CARGO = "/usr/bin/cargo" if os.path.exists("/usr/bin/cargo") else shutil.which("cargo")
BIN = Path(sys.executable).parent


def _cargo(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    if CARGO is None:
        pytest.skip("no cargo (`make toolchain` installs Debian's cargo-web)")
    assert (BIN / "cargo-offload").exists(), "cargo-offload is not installed: pip install -e ."
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([CARGO, "offload", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          encoding="utf-8", timeout=120)


def _in_crate(line: str) -> str:
    """A finding line as printed from inside ``warn_crate`` (paths relative to it)."""
    return line.replace("warn_crate/", "", 1)


def test_cargo_offload_check_lints_the_crate_of_the_current_directory():
    proc = _cargo("check", *only(), cwd=FIXTURES / "warn_crate")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines() == [_in_crate(SCALE_X), SCALE_X_HELP, _in_crate(SCALE_N),
                                        "0 errors, 2 warnings in 2 files"]


def test_cargo_offload_check_with_a_manifest_path_and_deny_exit_status():
    proc = _cargo("check", "--manifest-path", "deny_crate/Cargo.toml", "--format", "json", *only(),
                  cwd=FIXTURES)
    assert proc.returncode == 1, proc.stderr
    assert '"file": "deny_crate/src/lib.rs"' in proc.stdout


def test_cargo_offload_without_a_command_or_with_an_unknown_one():
    proc = _cargo(cwd=FIXTURES)
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: cargo offload COMMAND [ARGS]\n")
    proc = _cargo("bench", cwd=FIXTURES)
    assert proc.returncode == 2
    assert proc.stderr == ("cargo offload: no command `bench`; commands: check, build, run, profile, asm, doctor, "
                           "rules\n")


def test_cargo_arguments_become_offload_ls_arguments(tmp_path):
    crate = tmp_path / "k"
    (crate / "src" / "deep").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "k"\nversion = "0.1.0"\n')
    manifest = str(crate / "Cargo.toml")
    inside = crate / "src" / "deep"
    # the nearest Cargo.toml at or above the current directory, as cargo finds it
    assert translate(["offload", "check"], inside) == ["check", str(crate)]
    assert translate(["offload", "check", "-D", "x", "--format", "json"], inside) == \
        ["check", "-D", "x", "--format", "json", str(crate)]
    assert translate(["offload", "check", "src/lib.rs", "-D", "x"], inside) == ["check", "src/lib.rs", "-D", "x"]
    assert translate(["offload", "build", "--bin", "demo"], inside) == ["build", "--bin", "demo", manifest]
    assert translate(["offload", "run", f"--manifest-path={manifest}", "--", "--n", "5"], tmp_path) == \
        ["run", manifest, "--", "--n", "5"]
    assert translate(["offload", "check", "--manifest-path", manifest, "-D", "x"], tmp_path) == \
        ["check", "-D", "x", str(crate)]
    assert translate(["offload", "doctor"], tmp_path) == ["doctor"]
    assert translate(["offload", "--version"], tmp_path) == ["--version"]
    assert translate(["offload"], tmp_path) == []
    # what cargo refuses, refused in its words
    assert translate(["offload", "bench"], tmp_path) == ("cargo offload: no command `bench`; commands: check, "
                                                         "build, run, profile, asm, doctor, rules")
    assert translate(["offload", "profile", "--", "7"], inside) == ["profile", manifest, "--", "7"]
    assert translate(["offload", "asm", "--kernel", "k", "--format", "llvm-ir"], inside) == \
        ["asm", "--kernel", "k", "--format", "llvm-ir", manifest]
    assert translate(["offload", "asm", ".", "--kernel", "k"], inside) == ["asm", ".", "--kernel", "k"]
    assert translate(["offload", "check"], tmp_path) == \
        f"cargo offload: could not find `Cargo.toml` in `{tmp_path}` or any parent directory"
    assert translate(["offload", "check", "--manifest-path", "README.md"], tmp_path) == \
        "cargo offload: the manifest-path must be a path to a Cargo.toml file: `README.md`"
    assert translate(["offload", "run", "--manifest-path", "/nonexistent/Cargo.toml"], tmp_path) == \
        "cargo offload: manifest path `/nonexistent/Cargo.toml` does not exist"
    assert translate(["offload", "check", "--manifest-path"], tmp_path) == \
        "cargo offload: --manifest-path needs a value: the path to a Cargo.toml"
    assert translate(["offload", "check", "--manifest-path", manifest, "--manifest-path", manifest], tmp_path) == \
        "cargo offload: --manifest-path given twice"


def test_cargo_offload_profile_and_asm_on_the_crate_of_the_current_directory(tmp_path):
    """The real cargo runs `cargo offload profile` / `asm` on the example crate (no GPU here:
    the Virtual Host Device and the runtime's time trace; the PTX of the device pass)."""
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    crate = tmp_path / "offload-kernels"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "offload-kernels", crate,
                    ignore=shutil.ignore_patterns("target"))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    prof = subprocess.run([CARGO, "offload", "profile"], cwd=crate / "src", env=env, capture_output=True, text=True,
                          timeout=900)
    assert prof.returncode == 0, prof.stderr
    assert "OK hash_u32: 50000 elements" in prof.stdout
    assert "\nprofile (runtime log)\n  runtime (libomptarget time trace): kernel launches " in prof.stdout
    asm = subprocess.run([CARGO, "offload", "asm", "--kernel", "daxpy"], cwd=crate, env=env, capture_output=True,
                         text=True, timeout=900)
    assert asm.returncode == 0, asm.stderr
    assert asm.stdout.splitlines()[1].endswith("| .visible .entry daxpy(")
