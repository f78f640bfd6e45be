"""Stage a bundle on a run target and run it there over ssh.

Everything that runs on the target is an argv list (:class:`~offload_ls.gpu.shell.Shell`);
the scripts are constants that take their data as positional arguments
(``sh -c SCRIPT sh ARG...``), so no value is ever spliced into shell text.

Staging is content-addressed (issue 14): the target keeps ``<work-dir>/objects/<sha256>``
and a bundle is ``<work-dir>/bundles/<id>/`` made of hard links to its objects, ``<id>``
being the hash of its file list; only objects the target lacks are copied (``scp``, or a
local copy for Slurm on this machine), into a private incoming directory first, so an
interrupted copy never leaves a truncated object behind.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.gpu.bundle import HASH_CACHE, sha256_file
from offload_ls.gpu.shell import Shell
from offload_ls.gpu.targets import TargetError
from offload_ls.toolchain.process import CancelToken, Completed

Progress = Callable[[str], None]

#: What the target must answer first: where the work dir is, its C library, its GPUs
#: (``nvidia-smi``'s compute capability, when it has one), whether the bundle is there and
#: which objects are missing, each line after a marker (a login shell may print a banner).
#: A work dir offload-ls did not make (it has ``objects/``, ``bundles/`` or ``jobs/`` but not
#: the ``.offload-ls-workdir`` marker) is refused: the clean-up must never touch a user's
#: files. Arguments: work dir, bundle id, marker, object hashes.
_PROBE = r"""
m=$3
mkdir -p -- "$1" && cd -- "$1" || exit 97
if [ ! -e .offload-ls-workdir ]; then
  if [ -e objects ] || [ -e bundles ] || [ -e jobs ]; then
    echo "$m foreign"; exit 0
  fi
  mkdir -p objects bundles jobs &&
    echo "made by offload-ls: staged bundles (objects/, bundles/) and job output (jobs/)" \
      > .offload-ls-workdir || exit 97
fi
mkdir -p objects bundles jobs || exit 97
echo "$m workdir $(pwd -P)"
echo "$m glibc $(getconf GNU_LIBC_VERSION 2>/dev/null)"
if command -v nvidia-smi >/dev/null 2>&1; then
  for c in $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null); do echo "$m gpu $c"; done
fi
id=$2; shift 3
# leftovers of offload-ls's own (this dir has its marker): interrupted uploads, bundles and
# objects unused for 14 days, job output older than 14 days
find objects -mindepth 1 -maxdepth 1 -type d -name '.incoming-*' -mmin +1440 -exec rm -rf {} + 2>/dev/null
find bundles -mindepth 1 -maxdepth 1 -type d -name '[0-9a-f]*' -mtime +14 -exec rm -rf {} + 2>/dev/null
find objects -mindepth 1 -maxdepth 1 -type f -name '[0-9a-f]*' -links 1 -mtime +14 -exec rm -f {} + 2>/dev/null
find jobs -mindepth 1 -maxdepth 1 -type f -name 'job-*' -mtime +14 -exec rm -f {} + 2>/dev/null
if [ -e "bundles/$id/.offload-ls-complete" ]; then touch -- "bundles/$id"; echo "$m complete"; exit 0; fi
for h do [ -e "objects/$h" ] || echo "$m missing $h"; done
"""

#: Move uploaded objects in and build the bundle's tree of hard links, then mark it
#: complete (a rename, so a half-made bundle is never used). Arguments: work dir, bundle
#: id, incoming dir ("" if none), then entries of four words: ``f PATH SHA x|-`` (a file)
#: or ``l PATH TARGET -`` (a symbolic link).
_MATERIALIZE = r"""
cd -- "$1" || exit 97
id=$2; inc=$3; shift 3
if [ -n "$inc" ] && [ -d "objects/$inc" ]; then
  for o in "objects/$inc"/*; do
    [ -e "$o" ] || continue
    if [ -e "objects/${o##*/}" ]; then rm -f -- "$o"; else touch -- "$o" && mv -- "$o" objects/; fi
  done
  rmdir -- "objects/$inc"
fi
tmp="bundles/.$id.$$"
rm -rf -- "$tmp" && mkdir -p -- "$tmp" || exit 97
while [ $# -ge 4 ]; do
  k=$1; p=$2; v=$3; x=$4; shift 4
  mkdir -p -- "$tmp/$(dirname -- "$p")" || exit 97
  if [ "$k" = f ]; then
    touch -c -- "objects/$v"
    ln -- "objects/$v" "$tmp/$p" 2>/dev/null || cp -- "objects/$v" "$tmp/$p" || exit 97
    if [ "$x" = x ]; then chmod +x -- "$tmp/$p"; fi
  else
    ln -s -- "$v" "$tmp/$p" || exit 97
  fi
done
touch -- "$tmp/.offload-ls-complete"
if [ -e "bundles/$id/.offload-ls-complete" ]; then rm -rf -- "$tmp"; exit 0; fi  # a concurrent run made it
rm -rf -- "bundles/$id"
mv -- "$tmp" "bundles/$id" || exit 97
"""

#: Run the bundle in its directory as a child whose pid is recorded (so that a cancelled
#: run can be killed on the target: ssh without a terminal leaves it running), then say how
#: it ended on a line of its own on stderr: ssh's own exit status cannot tell a program
#: killed by a signal from a failed connection (both are 255). Arguments: bundle dir, pid
#: file, marker, then ``NAME=VALUE``... and the program's argv for ``env``.
_RUN = r"""
cd -- "$1" || exit 97
pidfile=$2; marker=$3; shift 3
env "$@" &
child=$!
echo "$child" > "$pidfile"
wait "$child"
status=$?
rm -f -- "$pidfile"
printf '\n%s %s\n' "$marker" "$status" >&2
exit "$status"
"""

_KILL = r"""
[ -f "$1" ] || exit 0
pid=$(cat -- "$1")
kill -TERM "$pid" 2>/dev/null && sleep 2 && kill -KILL "$pid" 2>/dev/null
rm -f -- "$1"
exit 0
"""

#: The batch script Slurm runs (``sbatch --chdir`` is the bundle's directory): Slurm copies
#: a batch script to its spool directory, so the bundle's ``run`` cannot be the script.
JOB_SCRIPT = "#!/bin/sh\n# Written by offload-ls: runs the staged bundle in the job's directory.\nexec ./run \"$@\"\n"

_SAFE_REL = re.compile(r"^[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)*$")


@dataclass
class Entry:
    """One file of a bundle: ``path`` relative to it; ``sha256`` and ``executable`` for a
    file, ``link`` (the link's text) for a symbolic link; ``source``: the local file."""

    path: str
    sha256: str = ""
    executable: bool = False
    link: str = ""
    source: Path | None = None
    size: int = 0


@dataclass
class Staged:
    """Where a bundle landed on the target and what it cost.

    Attributes:
        bundle_dir: absolute path on the target; work_dir: the target's absolute work dir.
        copied_files / copied_bytes: objects sent this time; reused_files: those the
            target already had (a complete bundle: all of them).
        glibc: the target's C library version ("2.36", "" unknown); gpu_archs: from
            ``nvidia-smi`` on the target (``sm_90``), empty when it has none.
    """

    bundle_id: str
    bundle_dir: str
    work_dir: str
    copied_files: int = 0
    copied_bytes: int = 0
    reused_files: int = 0
    glibc: str = ""
    gpu_archs: list[str] = field(default_factory=list)


def bundle_entries(directory: Path, extra: dict[str, bytes] | None = None, scratch: Path | None = None) -> list[Entry]:
    """The files of bundle ``directory`` (offload-ls's marker file left out), plus ``extra``
    files (relative path -> bytes, written under ``scratch``), sorted by path.

    Raises:
        TargetError: a file name that cannot be staged safely (spaces, shell characters).
    """
    out = []
    known = _read_hashes(directory / HASH_CACHE)
    hashes = {}
    for p in sorted(directory.rglob("*")):
        rel = p.relative_to(directory).as_posix()
        if rel in (".offload-ls-bundle", HASH_CACHE) or p.is_dir() and not p.is_symlink():
            continue
        if not _SAFE_REL.match(rel):
            raise TargetError(f"{p}: file names of a bundle must be letters, digits, '.', '_', '-', '+'")
        if p.is_symlink():
            out.append(Entry(rel, link=os.readlink(p)))
            continue
        st = p.stat()
        stamp = [st.st_size, st.st_mtime_ns]
        digest = known.get(rel, [None, None, None])
        sha = digest[2] if digest[:2] == stamp else sha256_file(p)
        hashes[rel] = [*stamp, sha]
        out.append(Entry(rel, sha, os.access(p, os.X_OK), source=p, size=st.st_size))
    if hashes != known:
        try:
            (directory / HASH_CACHE).write_text(json.dumps(hashes))
        except OSError:
            pass  # a read-only bundle: hashed again next time
    for rel, data in sorted((extra or {}).items()):
        assert scratch is not None, "extra files need a scratch directory"
        path = scratch / rel.replace("/", "__")
        path.write_bytes(data)
        path.chmod(0o755)
        out.append(Entry(rel, hashlib.sha256(data).hexdigest(), True, source=path, size=len(data)))
    return sorted(out, key=lambda e: e.path)


def _read_hashes(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def bundle_id(entries: Sequence[Entry]) -> str:
    """The content address of a bundle: a hash of its paths, contents, modes and links."""
    h = hashlib.sha256()
    for e in entries:
        h.update(f"{e.path}\0{e.sha256}\0{int(e.executable)}\0{e.link}\n".encode())
    return h.hexdigest()[:20]


async def stage(shell: Shell, entries: Sequence[Entry], *, timeout: float = 600.0,
                cancel: CancelToken | None = None, progress: Progress | None = None) -> Staged:
    """Put the bundle made of ``entries`` on the target (see the module's docstring).

    Raises:
        TargetError: the target cannot be reached, its work dir cannot be made, or a copy
            failed (the message says what to check).
    """
    say = progress or (lambda m: None)
    t = shell.target
    bid = bundle_id(entries)
    work = os.path.expanduser(t.work_dir) if shell.local else _home_relative(t.work_dir)
    objects = sorted({e.sha256 for e in entries if not e.link})
    say(f"checking {t.describe()}")
    marker = f"@offload-ls-{secrets.token_hex(6)}"
    probe = await shell.run(["sh", "-c", _PROBE, "sh", work, bid, marker, *objects], timeout=timeout, cancel=cancel)
    _raise_unless_ok(shell, probe, f"could not prepare the work dir {t.work_dir}")
    info = _probe_info(probe.stdout, marker)
    if info["foreign"]:
        raise TargetError(f"the work dir {t.work_dir} on {t.describe()} holds objects/, bundles/ or jobs/ that "
                          f"offload-ls did not make (no .offload-ls-workdir in it); choose an empty or new "
                          f"work-dir for the run target (offload-ls removes its own old files there)")
    staged = Staged(bid, f"{info['workdir']}/bundles/{bid}", info["workdir"], glibc=info["glibc"],
                    gpu_archs=info["gpus"])
    if info["complete"]:
        staged.reused_files = len(objects)
        say(f"bundle {bid} is already on {t.describe()}")
        return staged
    missing = set(info["missing"])
    sources = {e.sha256: e for e in entries if not e.link}
    send = [(sources[h].source, h) for h in sorted(missing)]
    staged.copied_files = len(send)
    staged.copied_bytes = sum(sources[h].size for h in missing)
    staged.reused_files = len(objects) - len(send)
    incoming = f".incoming-{os.getpid()}-{bid[:8]}" if send else ""
    if send:
        from offload_ls.toolchain.transfer_plan import human_bytes

        say(f"copying {len(send)} file(s), {human_bytes(staged.copied_bytes)}, to {t.describe()} "
            f"({staged.reused_files} already there)")
        mk = await shell.run(["mkdir", "-p", "--", f"{staged.work_dir}/objects/{incoming}"], timeout=timeout,
                             cancel=cancel)
        _raise_unless_ok(shell, mk, "could not make the incoming directory")
        try:
            up = await shell.upload(send, f"{staged.work_dir}/objects/{incoming}", timeout, cancel)
        except OSError as exc:
            raise TargetError(f"copying the bundle to {staged.work_dir} failed: {exc}") from exc
        if up is not None and not up.ok:
            why = (up.stderr.strip().splitlines() or [up.error or f"exit status {up.returncode}"])[-1]
            raise TargetError(f"copying the bundle to {t.host}:{staged.work_dir} with scp failed ({why}), although "
                              f"ssh to it worked: scp uses the SFTP subsystem since OpenSSH 9, so the host's sshd "
                              f"needs `Subsystem sftp`; try `scp` of a small file to it")
    words: list[str] = []
    for e in entries:
        words += ["l", e.path, e.link, "-"] if e.link else ["f", e.path, e.sha256, "x" if e.executable else "-"]
    done = await shell.run(["sh", "-c", _MATERIALIZE, "sh", staged.work_dir, bid, incoming, *words],
                           timeout=timeout, cancel=cancel)
    _raise_unless_ok(shell, done, "could not assemble the bundle on the target")
    return staged


def _home_relative(work_dir: str) -> str:
    """A work dir for a command that ssh starts in the home directory: ``~/x`` -> ``x``
    (a quoted ``~`` is not expanded)."""
    if work_dir == "~":
        return "."
    return work_dir[2:] if work_dir.startswith("~/") else work_dir


def _probe_info(text: str, marker: str) -> dict:
    info: dict = {"workdir": "", "glibc": "", "gpus": [], "complete": False, "missing": [], "foreign": False}
    for line in text.splitlines():
        if not line.startswith(marker + " "):
            continue  # a login banner, a message of the day
        key, _, value = line[len(marker) + 1:].partition(" ")
        if key == "workdir":
            info["workdir"] = value.strip()
        elif key == "glibc":
            info["glibc"] = value.strip().rpartition(" ")[2]
        elif key == "gpu":
            major, _, minor = value.strip().partition(".")
            if major.isdigit() and minor.isdigit():
                info["gpus"].append(f"sm_{major}{minor}")
        elif key == "complete":
            info["complete"] = True
        elif key == "missing":
            info["missing"].append(value.strip())
        elif key == "foreign":
            info["foreign"] = True
    if not info["workdir"] and not info["foreign"]:
        raise TargetError(f"the target did not say where its work dir is (its answer: {text.strip()[:200]!r})")
    return info


def _raise_unless_ok(shell: Shell, done: Completed, what: str) -> None:
    """Raise :class:`TargetError` for a failed staging step, saying why."""
    if done.ok:
        return
    why = shell.unreachable(done)
    if why:
        raise TargetError(why)
    if done.timed_out:
        raise TargetError(f"{what}: no answer within the time limit")
    if done.cancelled:
        raise TargetError(f"{what}: cancelled")
    detail = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
    raise TargetError(f"{what}: {detail[0]}")


async def run_over_ssh(shell: Shell, staged: Staged, program_args: Sequence[str], env: dict[str, str], *,
                       timeout: float, cancel: CancelToken | None,
                       on_stdout: Callable[[str], None] | None = None,
                       on_stderr: Callable[[str], None] | None = None) -> tuple[Completed, int | None]:
    """Run the staged bundle on an ssh target with ``env``; a cancelled, timed-out or
    interrupted (Ctrl-C) run is also killed on the target.

    Returns:
        (what ssh did, the program's own exit status as the target's shell saw it: 128 + N
        for signal N; ``None`` when it never ended there, e.g. the connection failed)."""
    pid_file = f"{staged.bundle_dir}/.offload-ls/pid-{os.getpid()}-{secrets.token_hex(4)}"
    marker = f"@offload-ls-exit-{secrets.token_hex(6)}"
    words = [f"{k}={v}" for k, v in sorted(env.items())]

    def err_line(line: str) -> None:
        if on_stderr is not None and not line.startswith(marker) and line != "":
            on_stderr(line)

    try:
        done = await shell.run(["sh", "-c", _RUN, "sh", staged.bundle_dir, pid_file, marker, *words, "./run",
                                *program_args], timeout=timeout, cancel=cancel, on_stdout=on_stdout,
                               on_stderr=err_line)
    except asyncio.CancelledError:
        await asyncio.shield(shell.run(["sh", "-c", _KILL, "sh", pid_file], timeout=30.0))
        raise
    status = None
    kept = []
    for line in done.stderr.splitlines():
        if line.startswith(marker + " "):
            tail = line[len(marker) + 1:].strip()
            status = int(tail) if tail.isdigit() else None
        else:
            kept.append(line)
    while kept and kept[-1] == "":
        kept.pop()  # the blank line before the marker
    done.stderr = "\n".join(kept) + ("\n" if kept else "")
    if done.cancelled or done.timed_out or status is None:
        # cancelled, timed out, or the connection dropped while it ran: it must not go on
        # running on the target
        await shell.run(["sh", "-c", _KILL, "sh", pid_file], timeout=30.0)
    return done, status
