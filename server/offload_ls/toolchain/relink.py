"""Relinking the host executable when an edit changed device-only code (issue 12, part 3).

The host pass of the LLVM-tools pipeline is ``rustc -Zoffload=Test -Clto=fat`` (rustc requires
fat LTO with offload: toolchain/facts.py ``NEEDS_FAT_LTO``): it merges the program with
``std`` and takes 16-19 s on this 2-core machine (docs/performance.md), on every edit, because
host and device code share the crate's files. But the host pass never compiles code under a
device-only ``#[cfg]`` (``#[cfg(offload_device)] mod device``, ``#[cfg(target_arch =
"nvptx64")]``): an edit inside such code changes the device image and nothing else of the
executable. The device image reaches the executable only at link time, as the object
``offload-image-<sha>.o`` that clang-linker-wrapper unpacks.

So a full host pass also asks rustc for its linker command line (``--print link-args``) and
keeps the LTO'd object (``-Csave-temps``; the bitcode files and temporary directories it also
keeps, and earlier passes' objects, are deleted: about 9 MB stay for a small crate),
and records both with the *host fingerprint*: a hash of the crate's sources with their
items whose ``#[cfg]`` is false in the host pass cut out (analysis/units/
``host_excluded_ranges``), its manifests, and the
path dependencies' sources. A later build whose fingerprint is the same runs the device passes
and then only that link command, with the new image object: about 1 s instead of the host pass.

Nothing here runs through a shell: the printed command line is split with :func:`shlex.split`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from offload_ls.analysis.units import host_excluded_ranges
from offload_ls.syntax.parse import parse
from offload_ls.toolchain.plan import Pass
from offload_ls.workspace.files import rust_files

#: appended to the host pass's rustc arguments (after ``--``)
CAPTURE_ARGS = ("--print", "link-args", "-Csave-temps")
#: the record of the last full host pass, in the build directory
RECORD = "host-link.json"
#: environment variables that change what cargo and rustc build (the Cargo Book,
#: "Environment variables"): part of the fingerprint
_ENV_PREFIXES = ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_", "CARGO_PROFILE_", "CARGO_TARGET_", "RUSTC")
_IMAGE_PREFIX = "offload-image-"


@dataclass(frozen=True)
class LinkRecord:
    """The linker command of the last full host pass: ``argv`` (clang first), ``env`` (the
    variables rustc set for it), ``image``: the device-image object it linked (an element
    of ``argv``), ``output``: the executable it wrote (the value after ``-o``),
    ``fingerprint``: :func:`host_fingerprint` of the sources it was built from."""

    argv: tuple[str, ...]
    env: dict[str, str]
    image: str
    output: str
    fingerprint: str

    def inputs_exist(self) -> bool:
        """Are the objects and libraries the command names still on disk (but the image object,
        which a relink replaces)?"""
        return all(Path(a).exists() for a in self.argv[1:]
                   if a.startswith("/") and a not in (self.output, self.image))  # the image is replaced


def parse_link_line(stdout: str) -> tuple[tuple[str, ...], dict[str, str]] | None:
    """The linker command rustc's ``--print link-args`` wrote among cargo's JSON lines
    (``VAR="v" .. "/usr/bin/clang" "-m64" ..``): (argv, env), or ``None``."""
    for line in stdout.splitlines():
        if not line.strip() or line.lstrip().startswith("{"):
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        env = {}
        while words and "=" in words[0] and not words[0].startswith(("/", "-")):
            k, v = words.pop(0).split("=", 1)
            env[k] = v
        if words and "-o" in words:
            return tuple(words), env
    return None


def record(build_dir: Path, stdout: str, fingerprint: str) -> LinkRecord | None:
    """After a full host pass: write :data:`RECORD` from its stdout, and delete the bitcode
    files ``-Csave-temps`` left next to the LTO'd object (tens of MB, never read). ``None``
    (and no record) when the command line or the image object is not found."""
    found = parse_link_line(stdout)
    path = build_dir / RECORD
    if found is None:
        path.unlink(missing_ok=True)
        return None
    argv, env = found
    image = next((a for a in argv if Path(a).name.startswith(_IMAGE_PREFIX) and a.endswith(".o")), None)
    output = argv[argv.index("-o") + 1] if argv.index("-o") + 1 < len(argv) else None
    if image is None or output is None:
        path.unlink(missing_ok=True)
        return None
    rec = LinkRecord(argv, env, image, output, fingerprint)
    path.write_text(json.dumps({"argv": list(argv), "env": env, "image": image, "output": output,
                                "fingerprint": fingerprint}))
    deps = Path(output).parent
    for bc in deps.glob("*.bc"):
        bc.unlink(missing_ok=True)
    for obj in deps.glob("*.rcgu.o"):  # earlier host passes' objects (8-9 MB each)
        if str(obj) not in argv:
            obj.unlink(missing_ok=True)
    # rustc's temporary directories that -Csave-temps keeps (one pair per host pass): all but
    # those the recorded command names
    named = {Path(a).parent.parent for a in argv if "/rustc" in a} | {Path(a).parent for a in argv}
    for tmp in [*deps.glob("rustc*"), *deps.glob("rmeta*")]:
        if tmp.is_dir() and tmp not in named:
            shutil.rmtree(tmp, ignore_errors=True)
    return rec


def load(build_dir: Path) -> LinkRecord | None:
    """The record of the last full host pass, or ``None`` (absent or unreadable)."""
    try:
        d = json.loads((build_dir / RECORD).read_text())
        return LinkRecord(tuple(d["argv"]), dict(d["env"]), d["image"], d["output"], d["fingerprint"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def host_fingerprint(crate_root: Path, manifest: Path, extra_sources: list[Path],
                     env_names: tuple[str, ...] = ()) -> str:
    """:func:`source_digest` of what the host pass compiles: the items whose ``#[cfg]`` is
    false in the host pass cut out (analysis/units/ ``host_excluded_ranges``)."""
    return source_digest(crate_root, manifest, extra_sources, env_names, cut_host_excluded=True)


def source_digest(crate_root: Path, manifest: Path, extra_sources: list[Path], env_names: tuple[str, ...] = (),
                  cut_host_excluded: bool = False) -> str:
    """SHA-256 (hex) of a crate's build inputs: every ``.rs`` file under ``crate_root``
    (build directories skipped; with ``cut_host_excluded``, without the items the host pass
    never compiles), the manifest and ``Cargo.lock``, the bytes of ``extra_sources`` (path
    dependencies' files, from cargo's dep-info), cargo's ``.cargo/config.toml`` files from
    ``crate_root`` up, the environment variables that carry flags (:data:`_ENV_PREFIXES`) and
    those named in ``env_names`` (``option_env!``/``env!`` reads: dep-info's ``env-dep``). A
    file that cannot be read counts as its error."""
    h = hashlib.sha256()
    crate_root = crate_root.resolve()
    files = list(rust_files(crate_root))
    for path in files:
        h.update(str(path.relative_to(crate_root)).encode() + b"\0")
        try:
            data = path.read_bytes()
        except OSError as exc:
            h.update(repr(exc).encode())
            continue
        pos = 0
        cut = host_excluded_ranges(parse(data).root_node) if cut_host_excluded else []
        for start, end in sorted(cut):
            if start >= pos:
                h.update(data[pos:start])
                pos = end
        h.update(data[pos:] + b"\0")
    extra = {p.resolve() for p in extra_sources} - set(files)
    # cargo's configuration files around the crate, and the environment it reads flags from
    configs = [d / ".cargo" / name for d in [crate_root, *crate_root.parents] for name in ("config.toml", "config")]
    for k in sorted(os.environ):
        if k.startswith(_ENV_PREFIXES):
            h.update(f"{k}={os.environ[k]}\0".encode())
    for k in sorted(set(env_names)):
        h.update(f"env-dep {k}={os.environ.get(k)!r}\0".encode())
    for path in [manifest, manifest.parent / "Cargo.lock", *sorted(extra), *(c for c in configs if c.is_file())]:
        h.update(str(path).encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError as exc:
            h.update(repr(exc).encode())
    return h.hexdigest()


def relink_pass(rec: LinkRecord, host: Pass, exe: Path) -> Pass | None:
    """The pass that replaces ``host`` (the full host pass): the recorded link command with
    the new device image (the host pass's ``offload-image-{sha:..}.o`` argument, resolved when
    it runs) and ``exe`` as its output. ``None`` when the host pass names no image object."""
    template = next((a.split("=", 1)[1] for a in host.argv
                     if a.startswith("-Clink-arg=") and _IMAGE_PREFIX in a and a.endswith(".o")), None)
    if template is None:
        return None
    argv = [template if a == rec.image else a for a in rec.argv]
    argv[argv.index("-o") + 1] = str(exe)
    env = {**host.env, **rec.env}  # over the server's environment (toolchain/process.py)
    return Pass("relink", "link", tuple(argv), env, host.cwd, host.timeout, (exe,), json=False, needs_clean=True)
