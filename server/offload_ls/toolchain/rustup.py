"""rustup's ``offload`` component of a rustup toolchain: whether rustup lists it, whether it
is installed (with rust-src), and the files it put in the sysroot (what doctor reports and
the command that installs what is missing)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.toolchain import facts
from offload_ls.toolchain.discover import PROBE_TIMEOUT, RustToolchain
from offload_ls.toolchain.process import run


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
        base = re.sub(r"-(x86_64|aarch64|i686|powerpc64le|riscv64gc|s390x)-[a-z0-9_]+-[a-z0-9_]+(-[a-z0-9_]+)?$",
                      "", name)
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
