"""Find and probe Rust toolchains: version, LLVM, ``-Zoffload`` modes, native offload, GPU std.
rustup's ``offload`` component is toolchain/rustup.py; LLVM's and CUDA's tools and the GPUs
are toolchain/tools.py.

Every probe is an argv list with a timeout (toolchain/process.py). Results of the rustc
probes are cached per rustc path + mtime (:mod:`offload_ls.toolchain.cache`), so they never
run on every save.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from offload_ls.toolchain import facts
from offload_ls.toolchain.cache import ProbeCache
from offload_ls.toolchain.process import run

__all__ = ["PROBE_TIMEOUT", "RustToolchain", "candidate_toolchains", "probe_toolchain"]

PROBE_TIMEOUT = 60.0  # seconds; a cold rustc on a loaded 2-core machine can take a while


@dataclass
class RustToolchain:
    """One rustc (+ the cargo beside it) and what it can do for offload.

    Attributes:
        rustc / cargo: absolute paths (cargo ``None`` if absent). origin: where it was found.
        release: e.g. ``"1.96.0"``; llvm_major: LLVM major version it was built with.
        offload_modes: values ``-Zoffload=`` accepts (``["Host=<Absolute-Path>", "Device",
            "Test"]``), from rustc's own error message; empty if the flag is unknown.
        native_offload: True if ``-Zoffload=Device`` codegen works, False if it ICEs with
            "not built with LLVM Offload support", None if not probed / inconclusive.
        gpu_std: target triple -> ``"prebuilt"`` (std/core installed for it),
            ``"build-std"`` (buildable with ``-Zbuild-std=core`` from rust-src), or
            ``"missing"``.
        vendor_dir: the crates ``-Zbuild-std`` needs, vendored in rust-src (``None`` if absent).
        error: why probing failed, if it did.
    """

    rustc: str
    cargo: str | None
    origin: str
    release: str | None = None
    commit_date: str | None = None
    llvm_version: str | None = None
    llvm_major: int | None = None
    host: str | None = None
    sysroot: str | None = None
    offload_modes: list[str] = field(default_factory=list)
    native_offload: bool | None = None
    native_note: str = ""
    gpu_std: dict[str, str] = field(default_factory=dict)
    vendor_dir: str | None = None
    error: str | None = None

    @property
    def supports_test_mode(self) -> bool:
        return "Test" in self.offload_modes

    @property
    def three_pass(self) -> bool:
        """``-Zoffload=HostMetadata=`` is accepted: today's three-pass pipeline (#159566)."""
        return any(m.split("=")[0] == facts.HOST_METADATA_MODE for m in self.offload_modes)

    def to_json(self) -> dict:
        return asdict(self)


def candidate_toolchains(rustc_setting: str | None = None, cargo_setting: str | None = None,
                         env: dict[str, str] | None = None) -> list[tuple[str, str | None, str]]:
    """(rustc, cargo, origin) candidates, most preferred first, without duplicates.

    Order: the ``rustc``/``cargo`` settings, ``RUSTC``/``CARGO`` environment variables,
    rustup toolchains (``$RUSTUP_HOME/toolchains/*``, nightly first), ``/usr/bin/rustc``
    (Debian's rustc-web), then a ``rustc`` on PATH that is not a rustup proxy.
    """
    env = dict(os.environ if env is None else env)
    out: list[tuple[str, str | None, str]] = []
    seen: set[str] = set()

    def add(rustc: str | None, cargo: str | None, origin: str) -> None:
        if not rustc:
            return
        path = shutil.which(rustc) if not os.path.isabs(rustc) else rustc
        if not path or not os.path.isfile(path):
            return
        real = os.path.realpath(path)
        if real in seen or os.path.basename(real) == "rustup":
            return
        seen.add(real)
        if cargo is None:
            beside = os.path.join(os.path.dirname(path), "cargo")
            cargo = beside if os.path.isfile(beside) else None
        out.append((path, cargo, origin))

    add(rustc_setting, cargo_setting, "setting offload-ls.toolchain.rustc")
    add(env.get("RUSTC"), env.get("CARGO"), "environment RUSTC")
    rustup_home = Path(env.get("RUSTUP_HOME") or Path(env.get("HOME", "~")).expanduser() / ".rustup")
    toolchains = rustup_home / "toolchains"
    if toolchains.is_dir():
        names = sorted(p.name for p in toolchains.iterdir() if (p / "bin" / "rustc").is_file())
        names.sort(key=lambda n: (not n.startswith("nightly"), n))
        for name in names:
            add(str(toolchains / name / "bin" / "rustc"), None, f"rustup toolchain {name}")
    add("/usr/bin/rustc", "/usr/bin/cargo" if os.path.isfile("/usr/bin/cargo") else None, "Debian /usr/bin (rustc-web)")
    add(shutil.which("rustc", path=env.get("PATH")), None, "PATH")
    return out


_VV = re.compile(r"^(\S[^:]*): (.*)$", re.M)


def probe_toolchain(rustc: str, cargo: str | None, origin: str, cache: ProbeCache | None = None) -> RustToolchain:
    """Probe one rustc: version, LLVM, ``-Zoffload`` modes, native offload, GPU targets.

    Results are cached per (rustc path, mtime) in ``cache``. Never raises.
    """
    key = cache.key_for(rustc) if cache is not None else None
    if cache is not None and key is not None:
        hit = cache.get(key)
        if hit is not None:
            tc = RustToolchain(**hit)
            tc.origin = origin
            return tc
    tc = _probe_uncached(rustc, cargo, origin)
    if cache is not None and key is not None and tc.error is None:
        cache.put(key, tc.to_json())
    return tc


def _probe_uncached(rustc: str, cargo: str | None, origin: str) -> RustToolchain:
    tc = RustToolchain(rustc=rustc, cargo=cargo, origin=origin)
    env = {"RUSTC_BOOTSTRAP": "1"}
    vv = run([rustc, "-vV"], timeout=PROBE_TIMEOUT, env=env)
    if not vv.ok:
        tc.error = vv.error or f"`{rustc} -vV` failed: {vv.stderr.strip()[:200]}"
        return tc
    info = dict(_VV.findall(vv.stdout))
    tc.release = info.get("release")
    tc.commit_date = info.get("commit-date")
    tc.host = info.get("host")
    tc.llvm_version = info.get("LLVM version")
    if tc.llvm_version:
        try:
            tc.llvm_major = int(tc.llvm_version.split(".")[0])
        except ValueError:
            pass
    sysroot = run([rustc, "--print", "sysroot"], timeout=PROBE_TIMEOUT, env=env)
    tc.sysroot = sysroot.stdout.strip() if sysroot.ok else None

    # The flag's accepted values, from rustc's own rejection of a bogus value.
    with tempfile.TemporaryDirectory(prefix="offload-ls-probe-") as d:
        src = Path(d) / "probe.rs"
        src.write_text("pub fn probe() {}\n")
        bad = run([rustc, "-Zoffload=offload_ls_probe", "--crate-type=lib", "--emit=metadata",
                   "-o", str(Path(d) / "probe.rmeta"), str(src)], timeout=PROBE_TIMEOUT, env=env, cwd=Path(d))
    text = bad.stderr
    if "was expected" in text:
        tc.offload_modes = re.findall(r"`([^`]+)`", text.split("settings:", 1)[-1].split("was expected")[0])
    elif "unknown unstable option" in text or "unknown option" in text:
        tc.offload_modes = []

    if tc.sysroot:
        lib = Path(tc.sysroot) / "lib" / "rustlib"
        src = lib / "src" / "rust" / "library"
        has_src = (src / "core" / "Cargo.toml").is_file()
        vendor = src / "vendor"
        tc.vendor_dir = str(vendor) if vendor.is_dir() else None
        for triple in facts.GPU_TARGETS:
            if (lib / triple / "lib").is_dir():
                tc.gpu_std[triple] = "prebuilt"
            elif has_src:
                tc.gpu_std[triple] = "build-std"
            else:
                tc.gpu_std[triple] = "missing"

    if "Device" in tc.offload_modes and any(m.startswith("Host") for m in tc.offload_modes):
        tc.native_offload, tc.native_note = _probe_native(rustc, env)
    else:
        tc.native_offload, tc.native_note = False, "-Zoffload=Device / Host= are not accepted"
    return tc


def _probe_native(rustc: str, env: dict[str, str]) -> tuple[bool | None, str]:
    """Compile an empty library through codegen with ``-Zoffload=Host=<abs path>``.

    A rustc without the ``llvm_offload`` feature reaches a stub and ICEs with "not built
    with LLVM Offload support" (docs/offload-notes.md). ``-Zoffload=Device`` on a
    crate without kernels does not reach that stub, so it cannot serve as the probe
    (measured with rustc 1.96.0 and nightly 2026-05-19).
    """
    with tempfile.TemporaryDirectory(prefix="offload-ls-probe-") as d:
        src = Path(d) / "probe.rs"
        src.write_text("pub fn probe() {}\n")
        image = Path(d) / "host.out"
        image.write_bytes(b"")
        res = run([rustc, f"-Zoffload=Host={image}", "-Zunstable-options", "--crate-type=lib",
                   "--emit=llvm-bc", "-o", str(Path(d) / "probe.bc"), str(src)],
                  timeout=PROBE_TIMEOUT, env=env, cwd=Path(d))
    if facts.NO_OFFLOAD_SUPPORT_ICE in res.stderr:
        return False, "rustc was not built with LLVM Offload support (-Zoffload=Host= ICEs)"
    if res.ok:
        return True, "-Zoffload=Host= codegen works"
    first = next((line for line in res.stderr.splitlines() if line.strip()), "")
    return None, f"offload support probe failed: {first[:200]}"


