"""Relinking after device-only edits (toolchain/relink.py): the host fingerprint ignores code
under a device-only ``#[cfg]`` and nothing else; with the real toolchain, an edit inside the
device module is built by the device passes and a link (no host pass), and the relinked
executable runs the new kernel on libomptarget's Virtual Host Device."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from offload_ls.toolchain import relink
from offload_ls.toolchain.plan import Pass
from offload_ls.workflow import build_crate

ROOT = Path(__file__).resolve().parents[2]

SOURCE = """\
pub const N: usize = 4;

#[cfg(offload_device)]
mod device {
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn scale(x: &mut [f32; super::N]) {
        x[0] *= 2.0;
    }
}

#[cfg(not(offload_device))]
fn main() {
    println!("host");
}
"""


def _crate(tmp_path: Path, source: str = SOURCE) -> Path:
    (tmp_path / "src").mkdir(parents=True, exist_ok=True)
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "k"\nversion = "0.1.0"\nedition = "2021"\n')
    (tmp_path / "src" / "main.rs").write_text(source)
    return tmp_path


def _fp(root: Path) -> str:
    return relink.host_fingerprint(root, root / "Cargo.toml", [])


def test_fingerprint_ignores_device_only_code_and_nothing_else(tmp_path, monkeypatch):
    root = _crate(tmp_path)
    base = _fp(root)
    assert _fp(root) == base  # deterministic
    _crate(tmp_path, SOURCE.replace("x[0] *= 2.0;", "x[0] *= 3.0; x[1] = 1.0;"))
    assert _fp(root) == base  # inside `#[cfg(offload_device)] mod device`: the host pass never sees it
    _crate(tmp_path, SOURCE.replace('println!("host");', 'println!("host!");'))
    assert _fp(root) != base  # host code
    _crate(tmp_path, SOURCE.replace("pub const N: usize = 4;", "pub const N: usize = 8;"))
    assert _fp(root) != base  # shared by both passes
    _crate(tmp_path, SOURCE.replace("#[cfg(offload_device)]\nmod device", "mod device"))
    assert _fp(root) != base  # no longer device-only
    anyhost = SOURCE.replace("#[cfg(offload_device)]\nmod device", "#[cfg(any(offload_device, unix))]\nmod device")
    _crate(tmp_path, anyhost)
    first = _fp(root)
    _crate(tmp_path, anyhost.replace("x[0] *= 2.0;", "x[0] *= 3.0;"))
    assert _fp(root) != first  # `any(offload_device, unix)` is compiled by the host pass too
    gated = SOURCE.replace("#[cfg(offload_device)]\nmod device",
                           '#[cfg(all(unix, target_arch = "nvptx64"))]\nmod device')
    _crate(tmp_path, gated)
    first = _fp(root)
    _crate(tmp_path, gated.replace("x[0] *= 2.0;", "x[0] *= 3.0;"))
    assert _fp(root) == first  # false on the host: `all(unix, target_arch = "nvptx64")`
    feat = SOURCE.replace("#[cfg(offload_device)]\nmod device", '#[cfg(feature = "gpu")]\nmod device')
    _crate(tmp_path, feat)
    first = _fp(root)
    _crate(tmp_path, feat.replace("x[0] *= 2.0;", "x[0] *= 3.0;"))
    assert _fp(root) != first  # a feature: not known to be off
    _crate(tmp_path)
    (root / "Cargo.toml").write_text((root / "Cargo.toml").read_text() + "\n[profile.release]\n")
    assert _fp(root) != base  # the manifest
    (root / "Cargo.toml").write_text('[package]\nname = "k"\nversion = "0.1.0"\nedition = "2021"\n')
    (root / "target" / "x").mkdir(parents=True)
    (root / "target" / "x" / "gen.rs").write_text("fn generated() {}")
    assert _fp(root) == base  # build directories are not sources
    (root / ".cargo").mkdir()
    (root / ".cargo" / "config.toml").write_text('[build]\nrustflags = ["-Ctarget-cpu=native"]\n')
    assert _fp(root) != base  # cargo's configuration
    (root / ".cargo" / "config.toml").unlink()
    assert _fp(root) == base
    monkeypatch.setenv("RUSTFLAGS", "-Copt-level=1")
    assert _fp(root) != base  # flags from the environment


def test_link_line_parsed_from_the_host_pass_stdout(tmp_path):
    line = ('LC_ALL="C" PATH="/usr/lib/llvm-22/bin:/usr/bin" VSLANG="1033" "/usr/lib/llvm-22/bin/clang" "-m64" '
            '"/b/deps/k-1.k.a-cgu.0.rcgu.o" "-lomptarget" "-o" "/b/deps/k-1" "-nodefaultlibs" '
            '"/b/offload-image-0123456789abcdef.o" "-fopenmp" "--offload-link"')
    stdout = '{"reason":"compiler-artifact"}\n' + line + '\n{"reason":"build-finished","success":true}\n'
    argv, env = relink.parse_link_line(stdout)
    assert env == {"LC_ALL": "C", "PATH": "/usr/lib/llvm-22/bin:/usr/bin", "VSLANG": "1033"}
    assert argv[0] == "/usr/lib/llvm-22/bin/clang" and argv[-1] == "--offload-link" and len(argv) == 10
    rec = relink.record(tmp_path, stdout, "f" * 64)
    assert (rec.image, rec.output) == ("/b/offload-image-0123456789abcdef.o", "/b/deps/k-1")
    assert relink.load(tmp_path) == rec
    assert json.loads((tmp_path / relink.RECORD).read_text())["fingerprint"] == "f" * 64
    host = Pass("host", "host", ("cargo", "rustc", "--", "-Clink-arg=/b/offload-image-{sha:/b/host.out}.o"),
                {"X": "1"}, tmp_path, 600.0, ())
    p = relink.relink_pass(rec, host, tmp_path / "exe")
    assert p.argv[p.argv.index("-o") + 1] == str(tmp_path / "exe")
    assert "/b/offload-image-{sha:/b/host.out}.o" in p.argv and rec.image not in p.argv
    assert p.env == {"X": "1", "LC_ALL": "C", "PATH": "/usr/lib/llvm-22/bin:/usr/bin", "VSLANG": "1033"}
    assert (p.name, p.needs_clean, p.json) == ("relink", True, False)
    # cargo output without a link line: no record (a stale one is removed)
    assert relink.record(tmp_path, '{"reason":"build-finished"}\n', "0" * 64) is None
    assert relink.load(tmp_path) is None


@pytest.mark.toolchain
def test_device_only_edit_relinks_and_runs_the_new_kernel(offload_report, tmp_path):
    crate = tmp_path / "offload-kernels"
    shutil.copytree(ROOT / "examples" / "offload-kernels", crate,
                    ignore=shutil.ignore_patterns("target", "offload-build"))
    main = crate / "src" / "main.rs"
    manifest = crate / "Cargo.toml"
    first = asyncio.run(build_crate(manifest, offload_report, device_image="host"))
    assert first.ok and "host" in first.pass_seconds and "relink" not in first.pass_seconds
    assert relink.load(crate / "target" / "offload-ls" / "build") is not None

    # inside `#[cfg(offload_device)] mod device`: the hash kernel now differs from the host's check
    src = main.read_text()
    edited = src.replace("rotate_left(13) ^ (i as u32);", "rotate_left(13) ^ (i as u32 + 1);")
    assert edited != src
    main.write_text(edited)
    second = asyncio.run(build_crate(manifest, offload_report, device_image="host"))
    assert second.ok, [d.message for d in second.diagnostics]
    assert "relink" in second.pass_seconds and "host" not in second.pass_seconds
    res = subprocess.run([str(second.exe)], capture_output=True, text=True, timeout=120)
    assert "OK saxpy: 65536 elements" in res.stdout
    assert "FAIL hash_u32: 50000 of 50000 elements wrong, first at [0]: got 1, expected 0" in res.stdout

    # a host edit: the full host pass again
    main.write_text(edited.replace('println!("OK {name}: {} elements"', 'println!("ok {name}: {} elements"'))
    third = asyncio.run(build_crate(manifest, offload_report, device_image="host"))
    assert third.ok and "host" in third.pass_seconds and "relink" not in third.pass_seconds
    res = subprocess.run([str(third.exe)], capture_output=True, text=True, timeout=120)
    assert "ok saxpy: 65536 elements" in res.stdout

    # an older copy of the file put back with its old time: the binary is not up to date
    main.write_text(edited)
    os.utime(main, (time.time() - 3600, time.time() - 3600))
    fourth = asyncio.run(build_crate(manifest, offload_report, device_image="host"))
    assert fourth.ok and not fourth.fresh
    res = subprocess.run([str(fourth.exe)], capture_output=True, text=True, timeout=120)
    assert "OK saxpy: 65536 elements" in res.stdout
    assert asyncio.run(build_crate(manifest, offload_report, device_image="host")).fresh
    # one device image object is kept, the current one
    assert len(list((crate / "target" / "offload-ls" / "build").glob("offload-image-*.o"))) == 1
