"""Find and probe Rust toolchains, LLVM offload tools, ptxas and GPUs.

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


@dataclass
class OffloadComponent:
    """What rustup says about one rustup toolchain's ``offload`` component.

    Attributes:
        toolchain: rustup's name for it (``nightly-x86_64-unknown-linux-gnu``).
        installed: the component is installed. available: rustup lists it at all (``False``:
        the toolchain predates it; ``None``: rustup could not be asked). rust_src: rust-src is
        installed (``-Zbuild-std=core`` needs it). runtimes: the component's files found in the
        sysroot (file names). rust_lld: the toolchain's ``rust-lld`` (links AMD images), if any.
        error: why rustup could not be asked.
    """

    toolchain: str
    installed: bool = False
    available: bool | None = None
    rust_src: bool = False
    runtimes: list[str] = field(default_factory=list)
    rust_lld: str | None = None
    error: str | None = None

    def fix(self, commit_date: str | None = None) -> str | None:
        """The command that makes this toolchain offload-capable (``None``: nothing missing)."""
        wanted = tuple(c for c, have in ((facts.OFFLOAD_COMPONENT, self.installed), ("rust-src", self.rust_src))
                       if not have)
        if not wanted:
            return None
        stale = self.available is False or (commit_date is not None and commit_date[:7] < facts.OFFLOAD_COMPONENT_SINCE)
        return facts.component_command(self.toolchain, wanted, update=stale and not self.installed)


def rustup_toolchain_name(rustc: str) -> str | None:
    """``nightly-x86_64-unknown-linux-gnu`` for ``~/.rustup/toolchains/<name>/bin/rustc``, else None."""
    parts = Path(rustc).parts
    if len(parts) >= 4 and parts[-2] == "bin" and parts[-4] == "toolchains":
        return parts[-3]
    return None


def find_rustup() -> str | None:
    """rustup on PATH or in ``$CARGO_HOME/bin`` / ``~/.cargo/bin``."""
    found = shutil.which("rustup")
    if found:
        return found
    home = os.environ.get("CARGO_HOME") or str(Path.home() / ".cargo")
    path = Path(home) / "bin" / "rustup"
    return str(path) if path.is_file() else None


def parse_component_list(text: str) -> tuple[set[str], set[str]]:
    """``rustup component list`` output -> (available names, installed names), names without
    the ``-<host triple>`` suffix rustup adds to host components (``offload``, ``rust-src``)."""
    available, installed = set(), set()
    for line in text.splitlines():
        name, _, state = line.strip().partition(" ")
        if not name:
            continue
        base = re.sub(r"-(x86_64|aarch64|i686|powerpc64le|riscv64gc|s390x)-[a-z0-9_]+-[a-z0-9_]+(-[a-z0-9_]+)?$", "", name)
        available.add(base)
        if "(installed)" in state:
            installed.add(base)
    return available, installed


def probe_offload_component(tc: RustToolchain) -> OffloadComponent | None:
    """Ask rustup about ``tc``'s ``offload`` component (``None`` if ``tc`` is not a rustup
    toolchain). Not cached: ``rustup component add`` does not change rustc's mtime. Never raises."""
    name = rustup_toolchain_name(tc.rustc)
    if name is None:
        return None
    comp = OffloadComponent(name)
    rustup = find_rustup()
    if rustup is None:
        comp.error = "rustup not found"
    else:
        # cwd outside any workspace: rustup reads rust-toolchain.toml files from the cwd upwards
        res = run([rustup, "component", "list", "--toolchain", name], timeout=PROBE_TIMEOUT,
                  cwd=Path(tempfile.gettempdir()))
        if res.ok:
            available, installed = parse_component_list(res.stdout)
            comp.available = facts.OFFLOAD_COMPONENT in available
            comp.installed = facts.OFFLOAD_COMPONENT in installed
            comp.rust_src = "rust-src" in installed
        else:
            comp.error = res.error or (res.stderr.strip().splitlines() or ["rustup failed"])[0][:200]
    if tc.sysroot:
        host = tc.host or facts.HOST_TRIPLE
        for d in (Path(tc.sysroot) / "lib" / "rustlib" / host / "lib", Path(tc.sysroot) / "lib"):
            for pattern in facts.OFFLOAD_COMPONENT_FILES:
                comp.runtimes += sorted(p.name for p in d.glob(pattern) if p.name not in comp.runtimes)
        lld = Path(tc.sysroot) / "lib" / "rustlib" / host / "bin" / "rust-lld"
        comp.rust_lld = str(lld) if lld.is_file() else None
    return comp


@dataclass
class LlvmTools:
    """LLVM tools of one major version (must match rustc's LLVM for bitcode to load).

    Attributes map tool name -> absolute path or ``None`` where missing.
    """

    major: int
    bin_dir: str | None
    tools: dict[str, str | None] = field(default_factory=dict)
    libomptarget: str | None = None
    plugins: list[str] = field(default_factory=list)

    REQUIRED = ("clang", "clang-linker-wrapper", "llvm-offload-binary", "llvm-dis", "opt", "llc")
    OPTIONAL = ("llvm-objdump", "llvm-offload-device-info", "ld.lld")

    @property
    def missing(self) -> list[str]:
        miss = [t for t in self.REQUIRED if not self.tools.get(t)]
        if not self.libomptarget:
            miss.append("libomptarget")
        return miss


def find_llvm_tools(major: int) -> LlvmTools:
    """Look for LLVM ``major``'s tools in ``/usr/lib/llvm-<major>/bin`` (Debian/apt.llvm.org
    layout), then on PATH with a ``-<major>`` suffix."""
    base = Path(f"/usr/lib/llvm-{major}")
    bin_dir = base / "bin"
    llvm = LlvmTools(major=major, bin_dir=str(bin_dir) if bin_dir.is_dir() else None)
    for tool in (*LlvmTools.REQUIRED, *LlvmTools.OPTIONAL):
        path = bin_dir / tool
        llvm.tools[tool] = str(path) if path.is_file() else shutil.which(f"{tool}-{major}")
    lib = base / "lib" / "libomptarget.so"
    if lib.exists():
        llvm.libomptarget = str(lib)
        llvm.plugins = _plugins_in(lib)
    return llvm


def _plugins_in(libomptarget: Path) -> list[str]:
    """Plugins built into libomptarget (LLVM >= 20 links them in): found by the names of
    the vendor libraries each plugin dlopens (libcuda.so, libhsa-runtime64.so), plus the
    host plugin, which every build has."""
    try:
        data = libomptarget.read_bytes()
    except OSError:
        return []
    plugins = []
    if b"libcuda.so" in data:
        plugins.append("cuda")
    if b"libhsa-runtime64.so" in data:
        plugins.append("amdgpu")
    plugins.append("host")
    for sep in libomptarget.parent.glob("libomptarget.rtl.*.so"):  # LLVM <= 19 layout
        plugins.append(sep.name.split(".")[2])
    return sorted(set(plugins))


def find_cuda_tool(name: str, cuda_path: str | None = None, beside: str | None = None) -> str | None:
    """A CUDA toolkit program (``ptxas``, ``nvdisasm``, ``ncu``): beside the program ``beside``
    (ptxas's directory), in ``cuda_path``/bin, ``CUDA_PATH``/bin, ``CUDA_HOME``/bin, on PATH,
    or in /usr/local/cuda/bin; ``None`` when absent."""
    roots = (cuda_path, os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"))
    dirs = [Path(beside).parent if beside else None, *(Path(r) / "bin" if r else None for r in roots)]
    for d in dirs:
        if d is not None and (d / name).is_file():
            return str(d / name)
    found = shutil.which(name)
    if found:
        return found
    default = Path("/usr/local/cuda/bin") / name
    return str(default) if default.is_file() else None


def find_ptxas(cuda_path: str | None = None) -> str | None:
    """``ptxas`` (:func:`find_cuda_tool`)."""
    return find_cuda_tool("ptxas", cuda_path)


def find_cuda_path(ptxas: str | None = None) -> str | None:
    """A CUDA installation for clang's ``--cuda-path`` (it reads the CUDA version there to
    choose the PTX version; a wrong path gives "PTX version 4.2 does not support target
    'sm_90'", measured with clang 22): ``CUDA_PATH``, ``CUDA_HOME``, ``/usr/local/cuda``,
    then the directory above ``ptxas``'s ``bin/`` if it looks like CUDA (has ``include/``)."""
    candidates = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    if ptxas:
        candidates.append(str(Path(os.path.realpath(ptxas)).parents[1]))
    for c in candidates:
        if c and (Path(c) / "bin" / "ptxas").is_file() and (Path(c) / "include").is_dir():
            return c
    return None


@dataclass
class Gpu:
    """A GPU seen on this machine. arch: ``sm_90`` / ``gfx90a`` where known."""

    vendor: str
    name: str
    arch: str | None
    source: str


def find_gpus(device_info: str | None = None) -> tuple[list[Gpu], list[str]]:
    """GPUs from ``nvidia-smi`` and ``rocm-smi``; ``llvm-offload-device-info`` (if given)
    confirms what libomptarget itself sees. Returns (gpus, notes)."""
    gpus: list[Gpu] = []
    notes: list[str] = []
    smi = shutil.which("nvidia-smi")
    if smi:
        res = run([smi, "--query-gpu=name,compute_cap", "--format=csv,noheader"], timeout=20)
        if res.ok:
            for line in res.stdout.splitlines():
                parts = [p.strip() for p in line.split(",")]
                if len(parts) >= 2 and parts[0]:
                    arch = "sm_" + parts[1].replace(".", "") if parts[1] else None
                    gpus.append(Gpu("nvidia", parts[0], arch, "nvidia-smi"))
        else:
            notes.append(f"nvidia-smi failed: {(res.error or res.stderr).strip()[:200]}")
    rocm = shutil.which("rocm-smi")
    if rocm:
        res = run([rocm, "--showproductname"], timeout=20)
        if res.ok:
            for line in res.stdout.splitlines():
                if "GFX Version" in line:
                    arch = line.rsplit(":", 1)[-1].strip()
                    gpus.append(Gpu("amd", line.split("]", 1)[0].strip("[ "), arch, "rocm-smi"))
    if device_info:
        res = run([device_info], timeout=30)
        if res.ok:
            for name in re.findall(r"^Name: (.*)$", res.stdout, re.M):
                notes.append(f"libomptarget sees: {name.strip()}")
        else:
            notes.append(f"llvm-offload-device-info failed: {(res.error or res.stderr).strip()[:200]}")
    return gpus, notes
