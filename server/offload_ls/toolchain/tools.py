"""Find LLVM's offload tools (of rustc's LLVM major version), CUDA's tools (ptxas, nvdisasm,
ncu) and the GPUs of this machine.

Every probe is an argv list with a timeout (toolchain/process.py).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.toolchain.process import run


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
