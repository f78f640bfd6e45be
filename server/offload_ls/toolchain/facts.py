"""Version-dependent facts about rustc's GPU offload, each with its source.

The toolchain's offload support changes month to month (DESIGN.md, "Known hard parts");
keep every such fact here, not scattered through the pipeline.
"""

from __future__ import annotations

from typing import Literal

#: ICE text of a rustc built without the ``llvm_offload`` feature when ``-Zoffload=Host=``
#: (or ``Device`` on a crate with kernels) reaches codegen (rustc_codegen_llvm/src/llvm/ffi.rs stub; seen with
#: Debian rustc 1.96.0 and nightly 2026-05-19, docs/offload-notes.md).
NO_OFFLOAD_SUPPORT_ICE = "not built with LLVM Offload support"

#: Host-pass error when the profile is not fat-LTO (rustc session check; docs/offload-notes.md).
NEEDS_FAT_LTO = "using the offload feature requires -C lto=fat"

#: rustc's own warning on array references in gpu-kernel signatures (rustc 1.96).
GPU_KERNEL_ABI_WARNING = 'to a function with "gpu-kernel" ABI may have unexpected behavior'

#: Target triples of GPU device passes and the default arch of each.
GPU_TARGETS = {
    "nvptx64-nvidia-cuda": "sm_90",
    "amdgcn-amd-amdhsa": "gfx90a",
}

#: Slice kernel arguments (``&[T]``/``&mut [T]``) are mapped with size 0 by rustc 1.96's
#: host pass (length dropped, nothing copied); docs/offload-notes.md table. Releases listed here are
#: known broken; others are unknown and shown as such.
SLICE_ARGS_BROKEN_RELEASES = ("1.96",)

#: The cfg the device pass gets (the convention of docs/offload-notes.md), so
#: single-source crates can ``#[cfg(offload_device)]`` their kernels.
DEVICE_CFG = "offload_device"

#: The cfg upstream's offload tests give the device pass (rust-lang/rust
#: tests/run-make/offload/host-std-device-nostd/rmake.rs: ``.cfg("device")``, and
#: ``#![cfg_attr(device, no_std)]`` / ``#[cfg(not(device))] fn main`` in its example.rs). offload-ls
#: passes it to its device passes too, so one source serves both toolchains.
UPSTREAM_DEVICE_CFG = "device"

#: Crate features of today's upstream offload that rustc 1.96 does not know (E0635 "unknown
#: feature", checked with Debian's rustc 1.96): ``gpu_offload`` (tests/run-make/offload/*/example.rs)
#: and ``offload`` (tests/ui/offload/auxiliary/offload_strategies.rs).
UPSTREAM_ONLY_FEATURES = ("gpu_offload", "offload")


def device_cfg_args() -> tuple[str, ...]:
    """rustc arguments every device pass gets: both device cfgs, declared for check-cfg so
    neither spelling warns as an unexpected cfg."""
    return ("--cfg", DEVICE_CFG, "--cfg", UPSTREAM_DEVICE_CFG, CHECK_DEVICE_CFGS)


#: Host passes declare the device cfgs too (``#[cfg(not(device))] fn main``).
CHECK_DEVICE_CFGS = f"--check-cfg=cfg({DEVICE_CFG}, {UPSTREAM_DEVICE_CFG})"

#: Map-type bits of libomptarget (llvm/include/llvm/Frontend/OpenMP/OMPConstants.h,
#: ``OpenMPOffloadMappingFlags``).
MAP_TYPE_BITS = {
    0x01: "TO",
    0x02: "FROM",
    0x04: "ALWAYS",
    0x08: "DELETE",
    0x10: "PTR_AND_OBJ",
    0x20: "TARGET_PARAM",
    0x40: "RETURN_PARAM",
    0x80: "PRIVATE",
    0x100: "LITERAL",
    0x200: "IMPLICIT",
    0x400: "CLOSE",
    0x800: "PRESENT",
    0x1000: "OMPX_HOLD",
    0x2000: "NON_CONTIG",
}

#: Debian 12 packages that provide the LLVM-tools pipeline (docs/offload-notes.md "Toolchain").
DEBIAN_PACKAGES = (
    "rustc-web", "cargo-web", "rust-web-src", "clang-22", "lld-22", "llvm-22", "llvm-22-tools",
    "llvm-22-dev", "libomp-22-dev", "liboffload-22", "liboffload-22-dev",
)


def install_command(packages: tuple[str, ...] = DEBIAN_PACKAGES) -> str:
    """The command that installs ``packages`` on Debian 12 (shown to users, never run)."""
    return "sudo apt-get update && sudo apt-get install -y " + " ".join(packages)


def slices_broken(release: str) -> bool | None:
    """True if slice kernel arguments are known broken in rustc ``release`` (e.g.
    ``"1.96.0"``), ``None`` if unknown."""
    return True if any(release.startswith(r) for r in SLICE_ARGS_BROKEN_RELEASES) else None


#: rustc arguments of today's three-pass native pipeline (rust-lang/rust #159566), as
#: tests/run-make/offload/host-std-device-nostd/rmake.rs and generic-manifest/rmake.rs give them:
#: every pass ``-Zunstable-options -Csymbol-mangling-version=v0 -Clto=fat`` (v0 mangling so the
#: manifest's generic instantiations match across passes); the host metadata pass
#: ``-Zoffload=HostMetadata=<manifest> --emit=metadata``; the device pass ``--cfg device
#: -Zoffload=Device=<manifest> -Cpanic=abort``; the host pass ``-Zoffload=Host=<device.bin>``.
#: Device target flags from rustc-dev-guide src/offload/usage.md: ``--target <gpu triple>
#: -Zbuild-std=core`` with ``-Ctarget-cpu=<arch>`` in RUSTFLAGS.
NATIVE_COMMON_ARGS = ("-Zunstable-options", "-Csymbol-mangling-version=v0", "-Clto=fat")


def host_metadata_args(manifest: str) -> tuple[str, ...]:
    """The host metadata pass's offload arguments (``manifest``: absolute path it writes)."""
    return (f"-Zoffload=HostMetadata={manifest}", *NATIVE_COMMON_ARGS, "--emit=metadata")


def native_device_args(manifest: str) -> tuple[str, ...]:
    """The native device pass's offload arguments (reads the host metadata pass's manifest)."""
    return (f"-Zoffload=Device={manifest}", *NATIVE_COMMON_ARGS, "-Cpanic=abort")


def native_host_args(device_bin: str) -> tuple[str, ...]:
    """The native host pass's offload arguments (``device_bin``: absolute path of the bundle)."""
    return (f"-Zoffload=Host={device_bin}", *NATIVE_COMMON_ARGS)


#: ``-Zoffload`` mode that marks the three-pass compiler (rustc's own rejection of a bogus
#: ``-Zoffload=`` value lists it; tests/ui/offload/generic_kernel_not_instantiated.stderr).
HOST_METADATA_MODE = "HostMetadata"

#: rmake.rs writes this placeholder as the device image of a host pass that only needs the
#: host's IR (``rfs::write(cwd().join("device.bin"), [0u8; 8])``); offload-ls does the same
#: for the transfer plan of check-on-save.
PLACEHOLDER_DEVICE_BIN = bytes(8)


#: The host's target triple, also the triple of libomptarget's Virtual Host Device image (the
#: x86_64 offload image that runs kernels on the CPU).
HOST_TRIPLE = "x86_64-unknown-linux-gnu"

#: rustup's component of today's nightly (rust-lang/rust #160991; ``rustup component add offload
#: --toolchain nightly``, since August 2026). ``rustup component list`` names it with the host
#: triple (``offload-x86_64-unknown-linux-gnu``), like every host component.
OFFLOAD_COMPONENT = "offload"

#: What the component puts in the sysroot's ``lib/rustlib/<host>/lib`` (observed in public probe
#: scripts and reports of August 2026: libRustOffload-23.so, libLLVMOffload.so, libomptarget.so,
#: libompdevice.a, libomptarget-nvptx.bc, libomptarget-amdgpu.bc), as glob patterns.
OFFLOAD_COMPONENT_FILES = ("libRustOffload-*.so", "libLLVMOffload.so*", "libomptarget.so*", "libompdevice.a",
                           "libomptarget-nvptx*.bc", "libomptarget-amdgpu*.bc")

#: The month the component first shipped: a nightly whose commit date is older cannot have it.
OFFLOAD_COMPONENT_SINCE = "2026-08"


def component_command(toolchain: str, components: tuple[str, ...] = (OFFLOAD_COMPONENT,), update: bool = False) -> str:
    """The rustup command that installs ``components`` for ``toolchain`` (shown, never run)."""
    add = f"rustup component add {' '.join(components)} --toolchain {toolchain}"
    return f"rustup update {toolchain.split('-')[0]} && {add}" if update else add


#: which images a build embeds: the GPU's, the x86_64 host device's (libomptarget's Virtual
#: Host Device, kernels run on the CPU), or both
DeviceImage = Literal["gpu", "host", "both"]
